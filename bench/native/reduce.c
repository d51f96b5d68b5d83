/* Sum reduction: OpenMP's reduction over the threads, each thread's share
 * summed in vector lanes (`simd`: the reassociation a CPU programmer asks
 * for; without it -O2 keeps one serial chain of dependent adds). */
#include "native_twins.h"

float native_reduce(const float* in, size_t n) {
  float sum = 0.0f;
#pragma omp parallel for simd schedule(static) reduction(+ : sum)
  for (size_t i = 0; i < n; ++i) sum += in[i];
  return sum;
}
