/* Float values and their bit patterns, for the kernels that compare results
 * as bits (float_ops.c, f64_ops.c): a union, which wasm and the host build of
 * these files (native_kernels) read the same way. */
#ifndef FLOAT_BITS_H
#define FLOAT_BITS_H
#include <stdint.h>

static inline uint64_t bits32(float f) {
  union {
    float f;
    uint32_t u;
  } v = {f};
  return v.u;
}
static inline uint64_t bits64(double d) {
  union {
    double d;
    uint64_t u;
  } v = {d};
  return v.u;
}
static inline float from_bits32(uint32_t u) {
  union {
    uint32_t u;
    float f;
  } v = {u};
  return v.f;
}
static inline double from_bits64(uint64_t u) {
  union {
    uint64_t u;
    double d;
  } v = {u};
  return v.d;
}
#endif
