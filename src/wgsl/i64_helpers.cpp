#include "wgsl/i64_helpers.h"

#include <fmt/core.h>

#include "abi/launch_abi.h"

namespace wasmgpu::wgsl {

std::string i64_prelude() {
  // Products are built from 16-bit halves, whose products fit in 32 bits;
  // division is restoring long division, one quotient bit per step, which
  // gives wasm's exact quotient and remainder for every operand.
  return fmt::format(R"(fn i64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}}

fn i64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}}

// The 64-bit product of two u32.
fn u32_mul_wide(a: u32, b: u32) -> vec2<u32> {{
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>((p00 & 0xffffu) | (mid << 16u), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}}

fn i64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
  let low = u32_mul_wide(a.x, b.x);
  return vec2<u32>(low.x, low.y + a.x * b.y + a.y * b.x);
}}

fn i64_shl(a: vec2<u32>, n: vec2<u32>) -> vec2<u32> {{
  let s = n.x & 63u;
  if (s == 0u) {{
    return a;
  }}
  if (s >= 32u) {{
    return vec2<u32>(0u, a.x << (s - 32u));
  }}
  return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}}

fn i64_shr_u(a: vec2<u32>, n: vec2<u32>) -> vec2<u32> {{
  let s = n.x & 63u;
  if (s == 0u) {{
    return a;
  }}
  if (s >= 32u) {{
    return vec2<u32>(a.y >> (s - 32u), 0u);
  }}
  return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}}

fn i64_shr_s(a: vec2<u32>, n: vec2<u32>) -> vec2<u32> {{
  let s = n.x & 63u;
  let high = bitcast<i32>(a.y);
  if (s == 0u) {{
    return a;
  }}
  if (s >= 32u) {{
    return vec2<u32>(bitcast<u32>(high >> (s - 32u)), bitcast<u32>(high >> 31u));
  }}
  return vec2<u32>((a.x >> s) | (a.y << (32u - s)), bitcast<u32>(high >> s));
}}

fn i64_rotl(a: vec2<u32>, n: vec2<u32>) -> vec2<u32> {{
  let s = n.x & 63u;
  return i64_shl(a, vec2<u32>(s, 0u)) | i64_shr_u(a, vec2<u32>((64u - s) & 63u, 0u));
}}

fn i64_rotr(a: vec2<u32>, n: vec2<u32>) -> vec2<u32> {{
  let s = n.x & 63u;
  return i64_shr_u(a, vec2<u32>(s, 0u)) | i64_shl(a, vec2<u32>((64u - s) & 63u, 0u));
}}

fn i64_lt_u(a: vec2<u32>, b: vec2<u32>) -> bool {{
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}}

fn i64_lt_s(a: vec2<u32>, b: vec2<u32>) -> bool {{
  return bitcast<i32>(a.y) < bitcast<i32>(b.y) || (a.y == b.y && a.x < b.x);
}}

fn i64_clz(a: vec2<u32>) -> vec2<u32> {{
  return vec2<u32>(select(32u + countLeadingZeros(a.x), countLeadingZeros(a.y), a.y != 0u), 0u);
}}

fn i64_ctz(a: vec2<u32>) -> vec2<u32> {{
  return vec2<u32>(select(32u + countTrailingZeros(a.y), countTrailingZeros(a.x), a.x != 0u), 0u);
}}

fn i64_popcnt(a: vec2<u32>) -> vec2<u32> {{
  return vec2<u32>(countOneBits(a.x) + countOneBits(a.y), 0u);
}}

// A u32 (the low word) sign-extended to 64 bits.
fn i64_extend_s(lo: u32) -> vec2<u32> {{
  return vec2<u32>(lo, bitcast<u32>(bitcast<i32>(lo) >> 31u));
}}

fn i64_neg(a: vec2<u32>) -> vec2<u32> {{
  return i64_sub(vec2<u32>(0u, 0u), a);
}}

// Round to nearest, ties to even: the top 32 bits after normalising, the
// bits below folded into a sticky bit 0 (below f32's rounding position),
// rounded by f32_from_u32 and scaled by the shift in the exponent field.
fn f32_from_u64(a: vec2<u32>) -> f32 {{
  if (a.y == 0u) {{
    return f32_from_u32(a.x);
  }}
  let lz = countLeadingZeros(a.y);
  let top = i64_shl(a, vec2<u32>(lz, 0u));
  let m = top.y | select(0u, 1u, top.x != 0u);
  return bitcast<f32>(bitcast<u32>(f32_from_u32(m)) + ((32u - lz) << 23u));
}}

fn f32_from_i64(a: vec2<u32>) -> f32 {{
  let negative = (a.y & 0x80000000u) != 0u;
  let magnitude = select(a, i64_neg(a), negative);
  return bitcast<f32>(bitcast<u32>(f32_from_u64(magnitude)) | select(0u, 0x80000000u, negative));
}}

// An integer-valued f32 in [0, 2^64) as a u64: its high word is t * 2^-32
// rounded down, and t less that part is the low word, both exact.
fn u64_from_whole_f32(t: f32) -> vec2<u32> {{
  let high = floor(f32_rounded(t * 2.3283064365386963e-10));
  let low = t - f32_rounded(high * 4294967296.0);
  return vec2<u32>(u32(low), u32(high));
}}

fn i64_trunc_f32_s(v: f32) -> vec2<u32> {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b)) {{
    trap({invalid}u);
    return vec2<u32>(0u, 0u);
  }}
  if ((b & 0x7fffffffu) >= 0x5f000000u) {{
    if (b == 0xdf000000u) {{
      return vec2<u32>(0u, 0x80000000u);
    }}
    trap({overflow}u);
    return vec2<u32>(0u, 0u);
  }}
  let magnitude = u64_from_whole_f32(trunc(abs(v)));
  return select(magnitude, i64_neg(magnitude), (b & 0x80000000u) != 0u);
}}

fn i64_trunc_f32_u(v: f32) -> vec2<u32> {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b)) {{
    trap({invalid}u);
    return vec2<u32>(0u, 0u);
  }}
  if ((b & 0x80000000u) != 0u) {{
    if ((b & 0x7fffffffu) >= 0x3f800000u) {{
      trap({overflow}u);
    }}
    return vec2<u32>(0u, 0u);
  }}
  if (b >= 0x5f800000u) {{
    trap({overflow}u);
    return vec2<u32>(0u, 0u);
  }}
  return u64_from_whole_f32(trunc(v));
}}

fn i64_trunc_sat_f32_s(v: f32) -> vec2<u32> {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b)) {{
    return vec2<u32>(0u, 0u);
  }}
  if ((b & 0x7fffffffu) >= 0x5f000000u) {{
    return select(vec2<u32>(0xffffffffu, 0x7fffffffu), vec2<u32>(0u, 0x80000000u), (b & 0x80000000u) != 0u);
  }}
  let magnitude = u64_from_whole_f32(trunc(abs(v)));
  return select(magnitude, i64_neg(magnitude), (b & 0x80000000u) != 0u);
}}

fn i64_trunc_sat_f32_u(v: f32) -> vec2<u32> {{
  let b = bitcast<u32>(v);
  if (f32_is_nan(b) || (b & 0x80000000u) != 0u) {{
    return vec2<u32>(0u, 0u);
  }}
  if (b >= 0x5f800000u) {{
    return vec2<u32>(0xffffffffu, 0xffffffffu);
  }}
  return u64_from_whole_f32(trunc(v));
}}

// The quotient (xy) and remainder (zw) of unsigned n / d, d != 0.
fn u64_divmod(n: vec2<u32>, d: vec2<u32>) -> vec4<u32> {{
  var q = vec2<u32>(0u, 0u);
  var r = vec2<u32>(0u, 0u);
  for (var i = 0u; i < 64u; i = i + 1u) {{
    let bit = 63u - i;
    let word = select(n.x, n.y, bit >= 32u);
    r = vec2<u32>((r.x << 1u) | ((word >> (bit & 31u)) & 1u), (r.y << 1u) | (r.x >> 31u));
    if (!i64_lt_u(r, d)) {{
      r = i64_sub(r, d);
      if (bit >= 32u) {{
        q.y = q.y | (1u << (bit - 32u));
      }} else {{
        q.x = q.x | (1u << bit);
      }}
    }}
  }}
  return vec4<u32>(q, r);
}}

fn i64_div_u(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
  if (all(b == vec2<u32>(0u, 0u))) {{
    trap({zero}u);
    return vec2<u32>(0u, 0u);
  }}
  return u64_divmod(a, b).xy;
}}

fn i64_rem_u(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
  if (all(b == vec2<u32>(0u, 0u))) {{
    trap({zero}u);
    return vec2<u32>(0u, 0u);
  }}
  return u64_divmod(a, b).zw;
}}

fn i64_abs(a: vec2<u32>) -> vec2<u32> {{
  return select(a, i64_neg(a), bitcast<i32>(a.y) < 0);
}}

fn i64_div_s(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
  if (all(b == vec2<u32>(0u, 0u))) {{
    trap({zero}u);
    return vec2<u32>(0u, 0u);
  }}
  if (all(a == vec2<u32>(0u, 0x80000000u)) && all(b == vec2<u32>(0xffffffffu, 0xffffffffu))) {{
    trap({overflow}u);
    return vec2<u32>(0u, 0u);
  }}
  let q = u64_divmod(i64_abs(a), i64_abs(b)).xy;
  return select(q, i64_neg(q), (bitcast<i32>(a.y) < 0) != (bitcast<i32>(b.y) < 0));
}}

fn i64_rem_s(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {{
  if (all(b == vec2<u32>(0u, 0u))) {{
    trap({zero}u);
    return vec2<u32>(0u, 0u);
  }}
  let r = u64_divmod(i64_abs(a), i64_abs(b)).zw;
  return select(r, i64_neg(r), bitcast<i32>(a.y) < 0);
}}

)",
                     fmt::arg("zero", uint32_t(abi::TrapKind::IntegerDivideByZero)),
                     fmt::arg("overflow", uint32_t(abi::TrapKind::IntegerOverflow)),
                     fmt::arg("invalid", uint32_t(abi::TrapKind::InvalidConversionToInteger)));
}

}  // namespace wasmgpu::wgsl
