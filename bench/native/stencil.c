/* Five-point Jacobi step: rows over the threads, the interior of a row in
 * one vectorised loop, its two boundary points (and the first and last rows)
 * copied. */
#include <string.h>

#include "native_twins.h"

void native_stencil(const float* in, float* out, unsigned w, unsigned h) {
#pragma omp parallel for schedule(static)
  for (unsigned y = 0; y < h; ++y) {
    const float* restrict row = in + (size_t)y * w;
    float* restrict dst = out + (size_t)y * w;
    if (y == 0 || y + 1 == h) {
      memcpy(dst, row, (size_t)w * sizeof(float));
      continue;
    }
    const float* restrict up = row - w;
    const float* restrict down = row + w;
    dst[0] = row[0];
    for (unsigned x = 1; x + 1 < w; ++x) dst[x] = 0.25f * (up[x] + down[x] + row[x - 1] + row[x + 1]);
    dst[w - 1] = row[w - 1];
  }
}
