#include "wgsl/f64_helpers.h"

#include <fmt/core.h>

#include "abi/launch_abi.h"

namespace wasmgpu::wgsl {
namespace {

// Words and fields. A significand in flight is a u64 (vec2<u32>) and its
// value is sig * 2^(exp - 1084): with the leading bit at 62, exp is the
// biased exponent minus one, so that packing by addition carries a
// significand that rounded up to the next power of two into the exponent.
constexpr const char* kWords = R"(const f64_canonical_nan = vec2<u32>(0u, 0x7ff80000u);

fn w_is_zero(a: vec2<u32>) -> bool {
  return (a.x | a.y) == 0u;
}

// Shifts by any amount, without branches: lavapipe compiles a shader's
// every call inlined and both sides of each branch for its SIMD lanes, so
// selects keep the f64 helpers' code small. WGSL masks a u32 shift amount to
// its low 5 bits, hence the & 31u and the selects around them.
fn w_shl(a: vec2<u32>, s: u32) -> vec2<u32> {
  let r = s & 31u;
  let carry = select(a.x >> ((32u - r) & 31u), 0u, r == 0u);
  let low = vec2<u32>(a.x << r, (a.y << r) | carry);
  let high = vec2<u32>(0u, a.x << r);
  return select(select(high, low, s < 32u), vec2<u32>(0u, 0u), s >= 64u);
}

fn w_shr(a: vec2<u32>, s: u32) -> vec2<u32> {
  let r = s & 31u;
  let carry = select(a.y << ((32u - r) & 31u), 0u, r == 0u);
  let low = vec2<u32>((a.x >> r) | carry, a.y >> r);
  let high = vec2<u32>(a.y >> r, 0u);
  return select(select(high, low, s < 32u), vec2<u32>(0u, 0u), s >= 64u);
}

// A right shift that ORs every bit it drops into bit 0 (the sticky bit), so
// that rounding later still sees that the value was above the truncation.
fn w_shr_jam(a: vec2<u32>, s: u32) -> vec2<u32> {
  let kept = w_shr(a, s);
  let lost = a ^ w_shl(kept, s);
  return kept | vec2<u32>(select(0u, 1u, !w_is_zero(lost) && s != 0u), 0u);
}

fn w_clz(a: vec2<u32>) -> u32 {
  return select(32u + countLeadingZeros(a.x), countLeadingZeros(a.y), a.y != 0u);
}

// The 128-bit product of two u64, lowest word first.
fn w_mul_wide(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
  let ll = u32_mul_wide(a.x, b.x);
  let lh = u32_mul_wide(a.x, b.y);
  let hl = u32_mul_wide(a.y, b.x);
  let hh = u32_mul_wide(a.y, b.y);
  let mid = i64_add(i64_add(vec2<u32>(ll.y, 0u), vec2<u32>(lh.x, 0u)), vec2<u32>(hl.x, 0u));
  let top = i64_add(i64_add(i64_add(hh, vec2<u32>(lh.y, 0u)), vec2<u32>(hl.y, 0u)), vec2<u32>(mid.y, 0u));
  return vec4<u32>(ll.x, mid.x, top.x, top.y);
}

fn f64_exponent(a: vec2<u32>) -> u32 {
  return (a.y >> 20u) & 0x7ffu;
}

fn f64_fraction(a: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x, a.y & 0xfffffu);
}

// The sign as the high word's top bit.
fn f64_sign(a: vec2<u32>) -> u32 {
  return a.y & 0x80000000u;
}

fn f64_magnitude(a: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x, a.y & 0x7fffffffu);
}

fn f64_is_nan(a: vec2<u32>) -> bool {
  let high = a.y & 0x7fffffffu;
  return high > 0x7ff00000u || (high == 0x7ff00000u && a.x != 0u);
}

fn f64_is_inf(a: vec2<u32>) -> bool {
  return (a.y & 0x7fffffffu) == 0x7ff00000u && a.x == 0u;
}

fn f64_is_zero(a: vec2<u32>) -> bool {
  return ((a.y & 0x7fffffffu) | a.x) == 0u;
}

fn f64_quiet(a: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x, a.y | 0x80000u);
}

// wasm's NaN result: the first NaN operand, quieted, else the canonical NaN.
fn f64_nan_result(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a)) {
    return f64_quiet(a);
  }
  if (f64_is_nan(b)) {
    return f64_quiet(b);
  }
  return f64_canonical_nan;
}

fn f64_infinity(sign: u32) -> vec2<u32> {
  return vec2<u32>(0u, sign | 0x7ff00000u);
}

// A finite nonzero value's significand, its leading bit moved to 52 for a
// subnormal, and its exponent (below 1 then): value = sig * 2^(exp - 1075).
struct F64Parts {
  exp: i32,
  sig: vec2<u32>,
}

fn f64_parts(a: vec2<u32>) -> F64Parts {
  let e = f64_exponent(a);
  let f = f64_fraction(a);
  if (e == 0u) {
    let shift = w_clz(f) - 11u;
    return F64Parts(1 - i32(shift), w_shl(f, shift));
  }
  return F64Parts(i32(e), f | vec2<u32>(0u, 0x100000u));
}

fn f64_pack(sign: u32, exp: i32, sig: vec2<u32>) -> vec2<u32> {
  let r = i64_add(vec2<u32>(0u, bitcast<u32>(exp) << 20u), sig);
  return vec2<u32>(r.x, r.y | sign);
}

// Rounds sig (leading bit at 62; its 10 low bits are dropped) to nearest,
// ties to even, into a subnormal, a normal or an infinity.
fn f64_round_pack(sign: u32, exp_in: i32, sig_in: vec2<u32>) -> vec2<u32> {
  var exp = exp_in;
  var sig = sig_in;
  if (exp < 0) {
    sig = w_shr_jam(sig, u32(min(-exp, 64)));
    exp = 0;
  } else if (exp > 0x7fd || (exp == 0x7fd && !i64_lt_u(i64_add(sig, vec2<u32>(0x200u, 0u)), vec2<u32>(0u, 0x80000000u)))) {
    return f64_infinity(sign);
  }
  let round_bits = sig.x & 0x3ffu;
  sig = w_shr(i64_add(sig, vec2<u32>(0x200u, 0u)), 10u);
  if (round_bits == 0x200u) {
    sig.x = sig.x & ~1u;
  }
  if (w_is_zero(sig)) {
    exp = 0;
  }
  return f64_pack(sign, exp, sig);
}

// The same for any sig below 2^63: normalised first, and packed without
// rounding when no bit is lost.
fn f64_norm_round_pack(sign: u32, exp: i32, sig: vec2<u32>) -> vec2<u32> {
  if (w_is_zero(sig)) {
    return vec2<u32>(0u, sign);
  }
  let shift = w_clz(sig) - 1u;
  let e = exp - i32(shift);
  if (shift >= 10u && e >= 0 && e < 0x7fd) {
    return f64_pack(sign, e, w_shl(sig, shift - 10u));
  }
  return f64_round_pack(sign, e, w_shl(sig, shift));
}

)";

// + - * / and square root. Sums align the smaller operand with a sticky
// shift: 9 guard bits lie below the 53 kept, and a difference of operands
// more than one place apart moves left by at most two places, so the sticky
// bit stays below the rounding point and decides ties only.
constexpr const char* kArithmetic = R"(fn f64_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a) || f64_is_nan(b)) {
    return f64_nan_result(a, b);
  }
  let a_inf = f64_is_inf(a);
  let b_inf = f64_is_inf(b);
  if (a_inf || b_inf) {
    if (a_inf && b_inf && f64_sign(a) != f64_sign(b)) {
      return f64_canonical_nan;
    }
    return select(b, a, a_inf);
  }
  if (f64_is_zero(a) && f64_is_zero(b)) {
    return vec2<u32>(0u, f64_sign(a) & f64_sign(b));
  }
  var x = a;
  var y = b;
  if (i64_lt_u(f64_magnitude(a), f64_magnitude(b))) {
    x = b;
    y = a;
  }
  let ex = max(f64_exponent(x), 1u);
  let ey = max(f64_exponent(y), 1u);
  let hx = select(0x100000u, 0u, f64_exponent(x) == 0u);
  let hy = select(0x100000u, 0u, f64_exponent(y) == 0u);
  let sx = w_shl(f64_fraction(x) | vec2<u32>(0u, hx), 9u);
  let sy = w_shr_jam(w_shl(f64_fraction(y) | vec2<u32>(0u, hy), 9u), ex - ey);
  if (f64_sign(x) == f64_sign(y)) {
    return f64_norm_round_pack(f64_sign(x), i32(ex), i64_add(sx, sy));
  }
  // An exact zero difference is +0 when rounding to nearest.
  return f64_norm_round_pack(select(f64_sign(x), 0u, all(sx == sy)), i32(ex), i64_sub(sx, sy));
}

fn f64_sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a) || f64_is_nan(b)) {
    return f64_nan_result(a, b);
  }
  return f64_add(a, vec2<u32>(b.x, b.y ^ 0x80000000u));
}

fn f64_mul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a) || f64_is_nan(b)) {
    return f64_nan_result(a, b);
  }
  let sign = f64_sign(a) ^ f64_sign(b);
  let zero = f64_is_zero(a) || f64_is_zero(b);
  if (f64_is_inf(a) || f64_is_inf(b)) {
    return select(f64_infinity(sign), f64_canonical_nan, zero);
  }
  if (zero) {
    return vec2<u32>(0u, sign);
  }
  let x = f64_parts(a);
  let y = f64_parts(b);
  // 53 x 53 bits: the product's leading bit is at 104 or 105; bits 43 and
  // up are kept, the rest goes into the sticky bit.
  let p = w_mul_wide(x.sig, y.sig);
  let sticky = select(0u, 1u, p.x != 0u || (p.y & 0x7ffu) != 0u);
  let sig = vec2<u32>((p.y >> 11u) | (p.z << 21u) | sticky, (p.z >> 11u) | (p.w << 21u));
  return f64_norm_round_pack(sign, x.exp + y.exp - 1023, sig);
}

fn f64_div(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a) || f64_is_nan(b)) {
    return f64_nan_result(a, b);
  }
  let sign = f64_sign(a) ^ f64_sign(b);
  let a_inf = f64_is_inf(a);
  let b_inf = f64_is_inf(b);
  let a_zero = f64_is_zero(a);
  let b_zero = f64_is_zero(b);
  if (a_inf) {
    return select(f64_infinity(sign), f64_canonical_nan, b_inf);
  }
  if (b_inf) {
    return vec2<u32>(0u, sign);
  }
  if (b_zero) {
    return select(f64_infinity(sign), f64_canonical_nan, a_zero);
  }
  if (a_zero) {
    return vec2<u32>(0u, sign);
  }
  let x = f64_parts(a);
  let y = f64_parts(b);
  var exp = x.exp - y.exp + 1022;
  var rem = x.sig;
  if (i64_lt_u(rem, y.sig)) {
    rem = w_shl(rem, 1u);
    exp = exp - 1;
  }
  // Restoring long division: rem / y.sig is in [1, 2), so 63 quotient bits
  // put the leading one at 62; a remainder left over is the sticky bit.
  var q = vec2<u32>(0u, 0u);
  for (var i = 0u; i < 63u; i++) {
    let fits = !i64_lt_u(rem, y.sig);
    q = vec2<u32>((q.x << 1u) | select(0u, 1u, fits), (q.y << 1u) | (q.x >> 31u));
    let left = select(rem, i64_sub(rem, y.sig), fits);
    rem = vec2<u32>(left.x << 1u, (left.y << 1u) | (left.x >> 31u));
  }
  q.x = q.x | select(0u, 1u, !w_is_zero(rem));
  return f64_round_pack(sign, exp, q);
}

fn f64_sqrt(a: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a)) {
    return f64_quiet(a);
  }
  if (f64_is_zero(a)) {
    return a;
  }
  if (f64_sign(a) != 0u) {
    return f64_canonical_nan;
  }
  if (f64_is_inf(a)) {
    return a;
  }
  let x = f64_parts(a);
  var e = x.exp - 1023;
  var sig = x.sig;
  if ((e & 1) != 0) {
    sig = w_shl(sig, 1u);
    e = e - 1;
  }
  // Digit by digit: q = floor(sqrt(sig * 2^56)), 55 bits with the leading
  // one at 54, taking the radicand's bits two at a time from the top.
  var rem = vec2<u32>(0u, 0u);
  var q = vec2<u32>(0u, 0u);
  for (var i = 54i; i >= 0i; i--) {
    let at = 2i * i - 56i;
    var pair = 0u;
    if (at >= 0i) {
      pair = w_shr(sig, u32(at)).x & 3u;
    }
    rem = vec2<u32>((rem.x << 2u) | pair, (rem.y << 2u) | (rem.x >> 30u));
    let trial = vec2<u32>((q.x << 2u) | 1u, (q.y << 2u) | (q.x >> 30u));
    let fits = !i64_lt_u(rem, trial);
    rem = select(rem, i64_sub(rem, trial), fits);
    q = vec2<u32>((q.x << 1u) | select(0u, 1u, fits), (q.y << 1u) | (q.x >> 31u));
  }
  let sig62 = w_shl(q, 8u) | vec2<u32>(select(0u, 1u, !w_is_zero(rem)), 0u);
  return f64_round_pack(0u, (e >> 1u) + 1022i, sig62);
}

)";

// Comparisons, min/max, rounding to integral and the sign operations, all on
// the bits.
constexpr const char* kOrdering = R"(// Bits to an unsigned key in float order (-0 below +0).
fn f64_order(a: vec2<u32>) -> vec2<u32> {
  if (f64_sign(a) != 0u) {
    return ~a;
  }
  return vec2<u32>(a.x, a.y | 0x80000000u);
}

// The same with both zeros equal, for comparisons.
fn f64_compare_key(a: vec2<u32>) -> vec2<u32> {
  return f64_order(select(a, vec2<u32>(0u, 0u), f64_is_zero(a)));
}

fn f64_eq(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !f64_is_nan(a) && !f64_is_nan(b) && all(f64_compare_key(a) == f64_compare_key(b));
}

fn f64_lt(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !f64_is_nan(a) && !f64_is_nan(b) && i64_lt_u(f64_compare_key(a), f64_compare_key(b));
}

fn f64_le(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !f64_is_nan(a) && !f64_is_nan(b) && !i64_lt_u(f64_compare_key(b), f64_compare_key(a));
}

fn f64_min(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a) || f64_is_nan(b)) {
    return f64_nan_result(a, b);
  }
  return select(b, a, i64_lt_u(f64_order(a), f64_order(b)));
}

fn f64_max(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (f64_is_nan(a) || f64_is_nan(b)) {
    return f64_nan_result(a, b);
  }
  return select(b, a, i64_lt_u(f64_order(b), f64_order(a)));
}

// mode 0 trunc, 1 floor, 2 ceil, 3 nearest (ties to even). The fraction
// bits below the binary point are cleared, and the magnitude goes one unit
// up where the mode says; a carry into the exponent is the next power of two.
fn f64_round(a: vec2<u32>, mode: u32) -> vec2<u32> {
  let e = i32(f64_exponent(a)) - 1023;
  if (e >= 52) {
    return select(a, f64_quiet(a), f64_is_nan(a));
  }
  if (f64_is_zero(a)) {
    return a;
  }
  let sign = f64_sign(a);
  let negative = sign != 0u;
  if (e < 0) {
    var one = false;
    if (mode == 1u) {
      one = negative;
    } else if (mode == 2u) {
      one = !negative;
    } else if (mode == 3u) {
      one = e == -1 && !w_is_zero(f64_fraction(a));
    }
    return vec2<u32>(0u, sign | select(0u, 0x3ff00000u, one));
  }
  let unit = w_shl(vec2<u32>(1u, 0u), u32(52 - e));
  let mask = i64_sub(unit, vec2<u32>(1u, 0u));
  let rest = a & mask;
  let whole = a & ~mask;
  if (w_is_zero(rest)) {
    return a;
  }
  var up = false;
  if (mode == 1u) {
    up = negative;
  } else if (mode == 2u) {
    up = !negative;
  } else if (mode == 3u) {
    let half = w_shr(unit, 1u);
    up = i64_lt_u(half, rest) || (all(rest == half) && !w_is_zero(whole & unit));
  }
  return select(whole, i64_add(whole, unit), up);
}

)";

// Conversions. f32 values cross as bits, so that a device that flushes f32
// subnormals still promotes and demotes them exactly.
constexpr const char* kConversions = R"(fn f64_promote(v: f32) -> vec2<u32> {
  let b = bitcast<u32>(v);
  let sign = b & 0x80000000u;
  let e = (b >> 23u) & 0xffu;
  let m = b & 0x7fffffu;
  if (e == 255u) {
    return vec2<u32>(m << 29u, sign | 0x7ff00000u | (m >> 3u) | select(0u, 0x80000u, m != 0u));
  }
  if (e == 0u) {
    if (m == 0u) {
      return vec2<u32>(0u, sign);
    }
    // m * 2^-149 with its top bit p: exponent p - 149, the bits below p the fraction.
    let p = 31u - countLeadingZeros(m);
    let fraction = (m << (23u - p)) & 0x7fffffu;
    return vec2<u32>(fraction << 29u, sign | ((p + 1023u - 149u) << 20u) | (fraction >> 3u));
  }
  return vec2<u32>(m << 29u, sign | ((e + 896u) << 20u) | (m >> 3u));
}

fn f32_demote(a: vec2<u32>) -> f32 {
  let sign = a.y & 0x80000000u;
  if (f64_is_nan(a)) {
    let f = f64_fraction(a);
    return bitcast<f32>(sign | 0x7fc00000u | (f.y << 3u) | (f.x >> 29u));
  }
  if (f64_is_inf(a)) {
    return bitcast<f32>(sign | 0x7f800000u);
  }
  if (f64_is_zero(a)) {
    return bitcast<f32>(sign);
  }
  // The significand with its leading bit at 30, the rest sticky; f32's
  // exponent minus one, as f64_round_pack has it.
  let x = f64_parts(a);
  let s62 = w_shl(x.sig, 10u);
  var sig = s62.y | select(0u, 1u, s62.x != 0u);
  var exp = x.exp - 897;
  if (exp < 0) {
    let s = u32(-exp);
    if (s >= 31u) {
      sig = select(0u, 1u, sig != 0u);
    } else {
      sig = (sig >> s) | select(0u, 1u, (sig << (32u - s)) != 0u);
    }
    exp = 0;
  } else if (exp > 0xfd || (exp == 0xfd && sig + 0x40u >= 0x80000000u)) {
    return bitcast<f32>(sign | 0x7f800000u);
  }
  let round_bits = sig & 0x7fu;
  sig = (sig + 0x40u) >> 7u;
  if (round_bits == 0x40u) {
    sig = sig & ~1u;
  }
  if (sig == 0u) {
    exp = 0;
  }
  return bitcast<f32>(sign | ((bitcast<u32>(exp) << 23u) + sig));
}

fn f64_from_magnitude(sign: u32, u: vec2<u32>) -> vec2<u32> {
  if ((u.y & 0x80000000u) != 0u) {
    return f64_round_pack(sign, 1085, w_shr_jam(u, 1u));
  }
  return f64_norm_round_pack(sign, 1084, u);
}

fn f64_from_u64(u: vec2<u32>) -> vec2<u32> {
  return f64_from_magnitude(0u, u);
}

fn f64_from_i64(v: vec2<u32>) -> vec2<u32> {
  let sign = v.y & 0x80000000u;
  return f64_from_magnitude(sign, select(v, i64_neg(v), sign != 0u));
}

fn f64_from_u32(v: u32) -> vec2<u32> {
  return f64_from_magnitude(0u, vec2<u32>(v, 0u));
}

fn f64_from_i32(v: u32) -> vec2<u32> {
  return f64_from_i64(i64_extend_s(v));
}

// |trunc(a)| for a finite |a| < 2^64.
fn f64_whole_magnitude(a: vec2<u32>) -> vec2<u32> {
  let e = i32(f64_exponent(a)) - 1023;
  if (e < 0) {
    return vec2<u32>(0u, 0u);
  }
  let sig = f64_fraction(a) | vec2<u32>(0u, 0x100000u);
  if (e >= 52) {
    return w_shl(sig, u32(e - 52));
  }
  return w_shr(sig, u32(52 - e));
}

fn f64_signed_whole(a: vec2<u32>) -> vec2<u32> {
  let m = f64_whole_magnitude(a);
  return select(m, i64_neg(m), f64_sign(a) != 0u);
}

// The bounds of each conversion's range, exclusive: the largest value below
// it truncates into range.
const f64_minus_2_31_minus_1 = vec2<u32>(0x00200000u, 0xc1e00000u);
const f64_2_31 = vec2<u32>(0u, 0x41e00000u);
const f64_minus_1 = vec2<u32>(0u, 0xbff00000u);
const f64_2_32 = vec2<u32>(0u, 0x41f00000u);
const f64_minus_2_63 = vec2<u32>(0u, 0xc3e00000u);
const f64_2_63 = vec2<u32>(0u, 0x43e00000u);
const f64_2_64 = vec2<u32>(0u, 0x43f00000u);

)";

}  // namespace

std::string f64_prelude() {
  std::string out = kWords;
  out += kArithmetic;
  out += kOrdering;
  out += kConversions;
  // The trapping truncations: NaN is an invalid conversion, a value whose
  // truncation is outside the integer's range an overflow.
  out += fmt::format(R"(fn i32_trunc_f64_s(a: vec2<u32>) -> u32 {{
  if (f64_is_nan(a)) {{
    trap({invalid}u);
    return 0u;
  }}
  if (!f64_lt(f64_minus_2_31_minus_1, a) || !f64_lt(a, f64_2_31)) {{
    trap({overflow}u);
    return 0u;
  }}
  return f64_signed_whole(a).x;
}}

fn i32_trunc_f64_u(a: vec2<u32>) -> u32 {{
  if (f64_is_nan(a)) {{
    trap({invalid}u);
    return 0u;
  }}
  if (!f64_lt(f64_minus_1, a) || !f64_lt(a, f64_2_32)) {{
    trap({overflow}u);
    return 0u;
  }}
  return f64_whole_magnitude(a).x;
}}

fn i64_trunc_f64_s(a: vec2<u32>) -> vec2<u32> {{
  if (f64_is_nan(a)) {{
    trap({invalid}u);
    return vec2<u32>(0u, 0u);
  }}
  if (f64_lt(a, f64_minus_2_63) || !f64_lt(a, f64_2_63)) {{
    trap({overflow}u);
    return vec2<u32>(0u, 0u);
  }}
  return f64_signed_whole(a);
}}

fn i64_trunc_f64_u(a: vec2<u32>) -> vec2<u32> {{
  if (f64_is_nan(a)) {{
    trap({invalid}u);
    return vec2<u32>(0u, 0u);
  }}
  if (!f64_lt(f64_minus_1, a) || !f64_lt(a, f64_2_64)) {{
    trap({overflow}u);
    return vec2<u32>(0u, 0u);
  }}
  return f64_whole_magnitude(a);
}}

fn i32_trunc_sat_f64_s(a: vec2<u32>) -> u32 {{
  if (f64_is_nan(a)) {{
    return 0u;
  }}
  if (!f64_lt(f64_minus_2_31_minus_1, a)) {{
    return 0x80000000u;
  }}
  if (!f64_lt(a, f64_2_31)) {{
    return 0x7fffffffu;
  }}
  return f64_signed_whole(a).x;
}}

fn i32_trunc_sat_f64_u(a: vec2<u32>) -> u32 {{
  if (f64_is_nan(a) || !f64_lt(f64_minus_1, a)) {{
    return 0u;
  }}
  if (!f64_lt(a, f64_2_32)) {{
    return 0xffffffffu;
  }}
  return f64_whole_magnitude(a).x;
}}

fn i64_trunc_sat_f64_s(a: vec2<u32>) -> vec2<u32> {{
  if (f64_is_nan(a)) {{
    return vec2<u32>(0u, 0u);
  }}
  if (f64_lt(a, f64_minus_2_63)) {{
    return vec2<u32>(0u, 0x80000000u);
  }}
  if (!f64_lt(a, f64_2_63)) {{
    return vec2<u32>(0xffffffffu, 0x7fffffffu);
  }}
  return f64_signed_whole(a);
}}

fn i64_trunc_sat_f64_u(a: vec2<u32>) -> vec2<u32> {{
  if (f64_is_nan(a) || !f64_lt(f64_minus_1, a)) {{
    return vec2<u32>(0u, 0u);
  }}
  if (!f64_lt(a, f64_2_64)) {{
    return vec2<u32>(0xffffffffu, 0xffffffffu);
  }}
  return f64_whole_magnitude(a);
}}

)",
                     fmt::arg("invalid", uint32_t(abi::TrapKind::InvalidConversionToInteger)),
                     fmt::arg("overflow", uint32_t(abi::TrapKind::IntegerOverflow)));
  return out;
}

}  // namespace wasmgpu::wgsl
