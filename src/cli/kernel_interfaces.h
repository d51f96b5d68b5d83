// The kernel interfaces of a .wasm or .spv file (told apart by the magic
// number), for `wasmgpu reflect` and `wasmgpu bindgen`.
#pragma once

#include <wasmgpu/interface.hpp>

#include <optional>
#include <string>
#include <vector>

namespace wasmgpu::cli {

struct FileInterfaces {
  KernelSource source = KernelSource::Wasm;
  std::vector<KernelInterface> kernels;
  // SPIR-V: struct types nested in the parameters' layouts.
  std::vector<StructLayout> nested_structs;
};

// Fails with a one-line error when the file is neither, is invalid, or has
// no kernel named `entry` (when given; the error lists the kernels).
FileInterfaces load_interfaces_or_fail(const std::string& path, const std::optional<std::string>& entry = {});

}  // namespace wasmgpu::cli
