// wasm's f64 in WGSL, which has no 64-bit floats: a value is its bit pattern
// as a vec2<u32> (x the low word, y the high word, as i64 is), and every
// operation is done on 32-bit integer words with wasm's bits: + - * / and
// square root rounded once to nearest even with subnormals kept, comparisons
// and min/max on the bits, ceil/floor/trunc/nearest, the conversions to and
// from i32, i64 and f32 with wasm's traps and saturation, and wasm's NaN
// results (the first NaN operand quieted, else the canonical NaN, as the
// Vulkan back end's exact mode gives them: spirv/float_exact.h).
#pragma once

#include <string>

namespace wasmgpu::wgsl {

// The WGSL functions f64 operations call (f64_add ... f64_sqrt, f64_eq/lt/le,
// f64_min/max, f64_round, f64_promote, f32_demote, f64_from_*, *_trunc_f64_*).
// They use i64_prelude()'s functions, which the shader must hold too, and
// trap() of the runtime prelude.
std::string f64_prelude();

}  // namespace wasmgpu::wgsl
