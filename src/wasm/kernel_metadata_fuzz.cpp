// Fuzz target: the kernel-metadata parser (the "wasmgpu.kernels" custom
// section). An input that is a wasm module is decoded and its section read as
// the runtime reads it; any other input is parsed as the section's contents.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "wasm/decoder.h"
#include "wasm/kernel_metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (size >= 4 && std::memcmp(data, "\0asm", 4) == 0) {
    auto module = wasmgpu::wasm::decode_and_validate(bytes);
    if (module.ok()) (void)wasmgpu::wasm::read_kernel_metadata(*module);
    return 0;
  }
  auto kernels = wasmgpu::wasm::parse_kernel_metadata(bytes);
  if (kernels.ok())
    for (const auto& kernel : *kernels)
      for (const auto& param : kernel.params) (void)wasmgpu::wasm::describe(param);
  return 0;
}
