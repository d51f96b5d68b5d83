/* Every f64 operation on pairs of bit patterns, results as bits: for the
 * WGSL back end's f64 on 32-bit words against the Vulkan back end's exact
 * mode (js/test/compare_with_vulkan.mjs), over edge values (zeros,
 * subnormals, infinities, NaNs with payloads, ties, the conversions' range
 * bounds) and random patterns. The wasm operations come from clang's wasm
 * builtins where C has no operator for them; the host build of this file
 * (the native_kernels library) uses C's nearest equivalents. */
#include <stdint.h>
#include <wasmgpu.h>

#include "float_bits.h"

#define F64_RESULTS 28

#ifdef __wasm__
#define F64_MIN(a, b) __builtin_wasm_min_f64(a, b)
#define F64_MAX(a, b) __builtin_wasm_max_f64(a, b)
#define NEAREST(a) __builtin_rint(a)
#else
#define F64_MIN(a, b) ((a) < (b) ? (a) : (b))
#define F64_MAX(a, b) ((a) > (b) ? (a) : (b))
#define NEAREST(a) __builtin_rint(a)
#endif

/* Conversions clamped as wasm's saturating truncations are (a C conversion
 * out of range is undefined). */
static int32_t to_i32(double x) {
  return x != x ? 0 : x <= -2147483649.0 ? INT32_MIN : x >= 2147483648.0 ? INT32_MAX : (int32_t)x;
}
static uint32_t to_u32(double x) { return x != x || x <= -1.0 ? 0 : x >= 4294967296.0 ? UINT32_MAX : (uint32_t)x; }
static int64_t to_i64(double x) {
  return x != x ? 0 : x < -9223372036854775808.0 ? INT64_MIN : x >= 9223372036854775808.0 ? INT64_MAX : (int64_t)x;
}
static uint64_t to_u64(double x) {
  return x != x || x <= -1.0 ? 0 : x >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)x;
}

WASMGPU_KERNEL(f64_ops)
void f64_ops(int i, const uint64_t *in, uint64_t *out) {
  uint64_t ua = in[2 * i], ub = in[2 * i + 1];
  double a = from_bits64(ua), b = from_bits64(ub);
  uint64_t *o = out + F64_RESULTS * i;
  o[0] = bits64(a + b);
  o[1] = bits64(a - b);
  o[2] = bits64(a * b);
  o[3] = bits64(a / b);
  o[4] = bits64(__builtin_sqrt(a));
  o[5] = bits64(F64_MIN(a, b));
  o[6] = bits64(F64_MAX(a, b));
  o[7] = bits64(__builtin_ceil(a));
  o[8] = bits64(__builtin_floor(a));
  o[9] = bits64(__builtin_trunc(a));
  o[10] = bits64(NEAREST(a));
  o[11] = bits64(__builtin_copysign(a, b));
  o[12] = bits64(__builtin_fabs(a));
  o[13] = bits64(-a);
  o[14] = (uint64_t)(a == b) | (uint64_t)(a != b) << 1 | (uint64_t)(a < b) << 2 | (uint64_t)(a > b) << 3 |
          (uint64_t)(a <= b) << 4 | (uint64_t)(a >= b) << 5;
  o[15] = bits32((float)a);
  o[16] = bits64((double)from_bits32((uint32_t)ub));
  o[17] = (uint32_t)to_i32(a);
  o[18] = to_u32(a);
  o[19] = (uint64_t)to_i64(a);
  o[20] = to_u64(a);
  o[21] = bits64((double)(int64_t)ub);
  o[22] = bits64((double)ub);
  o[23] = bits64((double)(int32_t)(uint32_t)ub);
  o[24] = bits64((double)(uint32_t)(ub >> 32));
  /* A chain whose rounding errors would compound: a*b+a, (a-b)/(a+b). */
  o[25] = bits64(a * b + a);
  o[26] = bits64((a - b) / (a + b));
  o[27] = bits64(__builtin_sqrt(a * a + b * b));
}

/* wasm's trapping truncation (clang guards a C cast with a range check, so
 * it never traps): NaN traps as an invalid conversion, a value out of range
 * as an overflow. */
WASMGPU_KERNEL(f64_to_i32_trapping)
void f64_to_i32_trapping(int i, const double *x, int32_t *out) {
#ifdef __wasm__
  out[i] = __builtin_wasm_trunc_s_i32_f64(x[i]);
#else
  out[i] = to_i32(x[i]);
#endif
}
