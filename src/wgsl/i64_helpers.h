// wasm's i64 in WGSL, which has no 64-bit integers: a value is a vec2<u32>
// (x the low word, y the high word), and the operations WGSL's vector
// operators do not give (carries, 64-bit shifts and rotations, products,
// signed and unsigned comparisons, trapping division) are functions of the
// prelude, written once per shader that uses i64 (docs/webgpu.md).
#pragma once

#include <string>

namespace wasmgpu::wgsl {

// The WGSL functions i64 operations call: i64_add, i64_sub, i64_mul,
// i64_shl/shr_u/shr_s/rotl/rotr, i64_lt_u/lt_s, i64_clz/ctz/popcnt,
// i64_extend_s, and i64_div_u/div_s/rem_u/rem_s, which trap as wasm says
// (trap() of the runtime prelude).
std::string i64_prelude();

}  // namespace wasmgpu::wgsl
