/* v128 (-msimd128, wasm_simd128.h): two kernels whose every result is a
 * v128 of fixed-width SIMD instructions on their item's bytes (saturation,
 * narrowing, extension, dot products, lanes, shuffles, lane loads and
 * stores) or floats and doubles (NaNs and signed zeros through the lanes'
 * arithmetic, min/max, rounding, conversions), so that the cpu device's bytes
 * can be compared with lavapipe's; and exports with v128 parameters and
 * results for Module::call. Two small kernels rather than one: lavapipe's
 * compile time grows faster than the shader (one kernel of all 40 results
 * took 88 s from a cold shader cache, these two take a few seconds). */
#include <stdint.h>
#include <wasm_simd128.h>
#include <wasmgpu.h>

#define INT_RESULTS 11
#define FLOAT_RESULTS 9

WASMGPU_KERNEL(simd_ints)
void simd_ints(int i, const uint8_t *bytes, v128_t *out) {
  const uint8_t *in = bytes + 32 * i;
  const v128_t a = wasm_v128_load(in), b = wasm_v128_load(in + 16);
  v128_t *o = out + (uint64_t)i * INT_RESULTS;
  o[0] = wasm_i8x16_add_sat(a, b);
  o[1] = wasm_i16x8_q15mulr_sat(a, b);
  o[2] = wasm_i32x4_dot_i16x8(a, b);
  o[3] = wasm_u16x8_narrow_i32x4(a, b);
  o[4] = wasm_i32x4_extend_high_i16x8(a);
  o[5] = wasm_i8x16_popcnt(a);
  o[6] = wasm_i8x16_swizzle(a, wasm_u8x16_shr(b, 3)); /* indices 0..31: half out of range */
  o[7] = wasm_i8x16_shuffle(a, b, 0, 17, 2, 19, 4, 21, 6, 23, 31, 30, 29, 28, 11, 10, 9, 8);
  o[8] = wasm_i32x4_make(wasm_i8x16_bitmask(a), wasm_i16x8_bitmask(b), wasm_i8x16_all_true(a),
                         wasm_v128_any_true(wasm_v128_and(a, b)));
  /* Memory: lane, splat, zero and extending loads at odd addresses; a lane store. */
  v128_t m = wasm_v128_load16_lane(in + 3, a, 5);
  o[9] = wasm_i64x2_add(m, wasm_v128_load32_splat(in + 9));
  o[10] = wasm_i16x8_add(wasm_u16x8_load8x8(in + 1), wasm_v128_load64_zero(in + 7));
  wasm_v128_store8_lane((uint8_t *)&o[10] + 15, b, 3);
}

WASMGPU_KERNEL(simd_floats)
void simd_floats(int i, const float *f, const double *d, v128_t *out) {
  const v128_t x = wasm_v128_load(f + 8 * i), y = wasm_v128_load(f + 8 * i + 4);
  const v128_t p = wasm_v128_load(d + 4 * i), q = wasm_v128_load(d + 4 * i + 2);
  v128_t *o = out + (uint64_t)i * FLOAT_RESULTS;
  o[0] = wasm_f32x4_div(x, y);
  o[1] = wasm_f32x4_min(x, y);
  o[2] = wasm_f64x2_max(p, q);
  o[3] = wasm_f32x4_nearest(x);
  o[4] = wasm_f64x2_promote_low_f32x4(x);
  o[5] = wasm_f32x4_demote_f64x2_zero(p);
  o[6] = wasm_i32x4_trunc_sat_f32x4(x);
  o[7] = wasm_u32x4_trunc_sat_f64x2_zero(p);
  o[8] = wasm_f32x4_convert_u32x4(y);
}

#define EXPORT(name) __attribute__((export_name(#name)))

/* v128 in calls: two slots each, the low half first. */
EXPORT(v128_mix) v128_t v128_mix(v128_t a, v128_t b, int shift) {
  return wasm_i16x8_sub_sat(wasm_i16x8_shl(a, shift), b);
}
EXPORT(v128_sum) double v128_sum(v128_t a) { return wasm_f64x2_extract_lane(a, 0) + wasm_f64x2_extract_lane(a, 1); }
