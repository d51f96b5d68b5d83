/* Float operations whose results exact mode decides bit for bit (NaN
 * payloads, subnormals, signed zeros, ties), with no conversion to integers,
 * so that no input traps: the cpu device's bits are compared with lavapipe's. */
#include <stdint.h>
#include <wasmgpu.h>

#define RESULTS_PER_ITEM 24

static uint64_t bits32(float f) {
  union {
    float f;
    uint32_t u;
  } v = {f};
  return v.u;
}
static uint64_t bits64(double d) {
  union {
    double d;
    uint64_t u;
  } v = {d};
  return v.u;
}

WASMGPU_KERNEL(float_edges)
void float_edges(int i, const float *f, const double *d, uint64_t *out) {
  float a = f[2 * i], b = f[2 * i + 1];
  double c = d[2 * i], e = d[2 * i + 1];
  uint64_t *o = out + (uint64_t)i * RESULTS_PER_ITEM;
  o[0] = bits32(a + b);
  o[1] = bits32(a - b);
  o[2] = bits32(a * b);
  o[3] = bits32(a / b);
  o[4] = bits32(__builtin_sqrtf(a));
  o[5] = bits32(__builtin_fminf(a, b));
  o[6] = bits32(__builtin_fmaxf(a, b));
  o[7] = bits32(__builtin_ceilf(a));
  o[8] = bits32(__builtin_floorf(a));
  o[9] = bits32(__builtin_truncf(a));
  o[10] = bits32(__builtin_rintf(a));
  o[11] = bits32((float)c);
  o[12] = bits64((double)a);
  o[13] = bits64(c + e);
  o[14] = bits64(c - e);
  o[15] = bits64(c * e);
  o[16] = bits64(c / e);
  o[17] = bits64(__builtin_sqrt(c));
  o[18] = bits64(__builtin_fmin(c, e));
  o[19] = bits64(__builtin_fmax(c, e));
  o[20] = bits64(__builtin_rint(c));
  o[21] = bits64(__builtin_floor(c));
  o[22] = (a < b) | (a <= b) << 1 | (a == b) << 2 | (a != b) << 3 | (a > b) << 4 | (a >= b) << 5;
  o[23] = (c < e) | (c <= e) << 1 | (c == e) << 2 | (c != e) << 3 | (c > e) << 4 | (c >= e) << 5;
}
