/* Float arithmetic and conversions in f32 and f64. Only operations Vulkan
 * rounds exactly are here (+, -, *, conversions, rounding to integral,
 * comparisons, abs/neg/copysign); inputs avoid subnormals, which devices may
 * flush. Division and square root, which Vulkan lets devices approximate,
 * come with the exact float mode. */
#include <stdint.h>
#include <wasmgpu.h>

#include "float_bits.h"

#define RESULTS_PER_ITEM 32

/* Conversions to integers as wasm's saturating truncations do them. A C
 * conversion of a value out of the integer's range is undefined behaviour
 * (UBSan stops the native build of this file on the 3.0e38 edge), so
 * out-of-range values are clamped first, in the wasm and the native code. */
static int32_t to_i32(float x) {
  return x != x ? 0 : x <= -2147483648.0f ? INT32_MIN : x >= 2147483648.0f ? INT32_MAX : (int32_t)x;
}
static int64_t to_i64(double x) {
  return x != x ? 0 : x <= -9223372036854775808.0 ? INT64_MIN : x >= 9223372036854775808.0 ? INT64_MAX : (int64_t)x;
}
static uint32_t to_u32(float x) { return x != x || x <= -1.0f ? 0 : x >= 4294967296.0f ? UINT32_MAX : (uint32_t)x; }

WASMGPU_KERNEL(float_ops)
void float_ops(int i, const float *f, const double *d, const int32_t *n, uint64_t *out) {
  float a = f[2 * i], b = f[2 * i + 1];
  double c = d[2 * i], e = d[2 * i + 1];
  int32_t k = n[i];
  uint64_t *o = out + (uint64_t)i * RESULTS_PER_ITEM;
  o[0] = bits32(a + b);
  o[1] = bits32(a - b);
  o[2] = bits32(a * b);
  o[3] = bits32(a * b + a); /* no fused multiply-add */
  o[4] = bits64(c + e);
  o[5] = bits64(c - e);
  o[6] = bits64(c * e);
  o[7] = bits64(c * e - c);
  o[8] = bits32(__builtin_fabsf(a));
  o[9] = bits32(-a);
  o[10] = bits32(__builtin_copysignf(a, b));
  o[11] = bits32(__builtin_truncf(a));
  o[12] = bits32(__builtin_floorf(a));
  o[13] = bits32(__builtin_ceilf(a));
  o[14] = bits32(__builtin_rintf(a));
  o[15] = bits64(__builtin_trunc(c));
  o[16] = bits64(__builtin_floor(c));
  o[17] = bits64(__builtin_ceil(c));
  o[18] = bits64(__builtin_rint(c));
  o[19] = bits64(__builtin_copysign(c, e));
  o[20] = bits32((float)c);  /* demote */
  o[21] = bits64((double)a); /* promote */
  o[22] = bits32((float)k);
  o[23] = bits64((double)k);
  o[24] = bits32((float)(uint32_t)k);
  o[25] = bits64((double)((int64_t)k * 1000003));
  o[26] = bits32((float)((uint64_t)(uint32_t)k << 20));
  /* float -> int, saturating (the 3.0e38 edge is out of range) */
  o[27] = (uint64_t)(int64_t)to_i32(a * 0.25f);
  o[28] = (uint64_t)to_i64(c * 0.5);
  o[29] = to_u32(__builtin_fabsf(b) * 0.5f);
  o[30] = (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (c > e) << 4 | (c >= e) << 5 | (c != c) << 6;
  o[31] = bits32(a > b ? a : b) ^ bits64(c < e ? c : e);
}
