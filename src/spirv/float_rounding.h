// ceil, floor, trunc and nearest (f32 and f64) computed from the value's
// bits with integer instructions, in both float modes.
//
// Vulkan requires GLSL.std.450's Ceil/Floor/Trunc/RoundEven to be exact, but
// lavapipe (Mesa 25.0.7 on an AVX2 CPU without AVX-512) returned
// trunc(4503599627370495.5) unchanged and nearest(-3.5) = -3 while the same
// packages were right on another CPU. The integer form costs a handful of
// instructions and depends on nothing a driver may get wrong
// (docs/float-modes.md, "What each operation relies on").
#pragma once

#include <cstdint>

#include "spirv/kernel_context.h"
#include "wasm/opcode.h"

namespace wasmgpu::spirv {

// `value` is an f32 or f64 id (as `opcode` says); returns the result's id of
// the same type. A NaN input gives itself with the quiet bit set (wasm's
// arithmetic NaN), zeros and infinities give themselves.
Id round_to_integral(KernelContext& k, FunctionBuilder& f, wasm::Opcode opcode, Id value);

}  // namespace wasmgpu::spirv
