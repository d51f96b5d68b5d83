/* SGEMM, C = A * B: blocks of rows of C over the threads; inside, i-k-j
 * order with the j loop vectorised, over 64 x 256 blocks of B kept in cache.
 * Each element of C still sums its products in ascending k. */
#include <string.h>

#include "native_twins.h"

#define BLOCK_K 64
#define BLOCK_J 256

void native_sgemm(const float* a, const float* b, float* c, unsigned n) {
#pragma omp parallel for schedule(static)
  for (unsigned i = 0; i < n; ++i) memset(c + (size_t)i * n, 0, (size_t)n * sizeof(float));
#pragma omp parallel for collapse(2) schedule(static)
  for (unsigned i0 = 0; i0 < n; i0 += 16)
    for (unsigned j0 = 0; j0 < n; j0 += BLOCK_J) {
      unsigned i1 = i0 + 16 < n ? i0 + 16 : n, j1 = j0 + BLOCK_J < n ? j0 + BLOCK_J : n;
      for (unsigned k0 = 0; k0 < n; k0 += BLOCK_K) {
        unsigned k1 = k0 + BLOCK_K < n ? k0 + BLOCK_K : n;
        for (unsigned i = i0; i < i1; ++i) {
          float* restrict ci = c + (size_t)i * n;
          for (unsigned k = k0; k < k1; ++k) {
            const float aik = a[(size_t)i * n + k];
            const float* restrict bk = b + (size_t)k * n;
            for (unsigned j = j0; j < j1; ++j) ci[j] += aik * bk[j];
          }
        }
      }
    }
}
