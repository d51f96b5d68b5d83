/* STREAM triad, the triad workload's twin. */
#include "native_twins.h"

void native_triad(float* a, const float* b, const float* c, float s, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}
