/* Byte histogram: each thread counts its share into private bins (no
 * atomics), then adds them to the shared bins once. */
#include <string.h>

#include "native_twins.h"

void native_histogram(const unsigned char* data, size_t n, int32_t bins[256]) {
  memset(bins, 0, 256 * sizeof(int32_t));
#pragma omp parallel
  {
    int32_t local[256] = {0};
#pragma omp for schedule(static) nowait
    for (size_t i = 0; i < n; ++i) local[data[i]]++;
    for (int b = 0; b < 256; ++b)
      if (local[b]) {
#pragma omp atomic
        bins[b] += local[b];
      }
  }
}
