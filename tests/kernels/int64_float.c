/* Conversions between 64-bit integers and f32, both ways: each invocation
 * converts its u64 (as unsigned and as signed) to float, and its float to
 * int64 and uint64 where C defines the result (elsewhere it writes 0), so
 * that the bits can be compared with another device's. */
#include <stdint.h>
#include <string.h>
#include <wasmgpu.h>

static uint32_t bits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

WASMGPU_KERNEL(int64_float)
void int64_float(int i, const uint64_t *ints, const float *floats, uint32_t *out_floats, uint64_t *out_ints) {
  uint64_t u = ints[i];
  float x = floats[i];
  out_floats[2 * i] = bits((float)u);
  out_floats[2 * i + 1] = bits((float)(int64_t)u);
  out_ints[2 * i] = (x > -9.2233715e18f && x < 9.2233715e18f) ? (uint64_t)(int64_t)x : 0;
  out_ints[2 * i + 1] = (x > -1.0f && x < 1.8446743e19f) ? (uint64_t)x : 0;
}
