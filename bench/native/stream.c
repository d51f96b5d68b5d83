/* STREAM-style copy and triad (after McCalpin's STREAM): the machine's memory
 * bandwidth over all cores, for the memory-bound rows' native/ref ratio. */
#include "native_twins.h"

void native_stream_copy(float* dst, const float* src, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) dst[i] = src[i];
}

void native_stream_triad(float* a, const float* b, const float* c, float s, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}
