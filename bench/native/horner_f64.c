/* f64 polynomial in Horner form: elements over the threads in blocks of 32,
 * each block's 32 accumulators stepped together through the coefficients so
 * that the loop over the block vectorises and 32 independent chains of
 * multiply-adds hide their latency (LLVM does not vectorise the outer loop of
 * the plain per-element form). */
#include "native_twins.h"

#define LANES 32

void native_horner_f64(const double* x, double* y, size_t n, const double* coef, unsigned degree) {
  const size_t blocks = n / LANES;
#pragma omp parallel for schedule(static)
  for (size_t b = 0; b < blocks; ++b) {
    const double* restrict v = x + b * LANES;
    double acc[LANES];
    for (int l = 0; l < LANES; ++l) acc[l] = coef[degree];
    for (unsigned k = degree; k-- > 0;) {
      const double c = coef[k];
      for (int l = 0; l < LANES; ++l) acc[l] = acc[l] * v[l] + c;
    }
    for (int l = 0; l < LANES; ++l) y[b * LANES + l] = acc[l];
  }
  for (size_t i = blocks * LANES; i < n; ++i) {
    double acc = coef[degree];
    for (unsigned k = degree; k-- > 0;) acc = acc * x[i] + coef[k];
    y[i] = acc;
  }
}
