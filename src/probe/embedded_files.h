// The device probe's shaders and wasm modules, built at build time (GLSL with
// glslang, .wat with wat2wasm, C with clang) and embedded in the binary.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace wasmgpu::probe {

// The bytes of the built file `name` ("raw_float32.spv", "probe_ops.wasm",
// "probe_kernels.wasm"); empty when there is none.
std::span<const uint8_t> probe_file(std::string_view name);

}  // namespace wasmgpu::probe
