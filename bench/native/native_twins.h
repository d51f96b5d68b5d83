/* The bench's native CPU twins (bench/native/NAME.c): each workload's algorithm
 * written as a C programmer writes it for the CPU, with an OpenMP parallel loop
 * over all cores instead of workgroups and barriers. Built by clang-19 -O2
 * -march=native -fopenmp -ffp-contract=off (bench/CMakeLists.txt): no
 * contraction, so that every float result is the bits of the C reference and
 * of the wasm kernels in exact mode, except where the twin reorders a sum
 * (reduce). Declared only when the build found libomp (WASMGPU_BENCH_NATIVE). */
#ifndef BENCH_NATIVE_TWINS_H
#define BENCH_NATIVE_TWINS_H

#include <stddef.h>
#include <stdint.h>

#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* STREAM-style machine references (stream.c): dst = src, and a = b + s * c. */
void native_stream_copy(float* dst, const float* src, size_t n);
void native_stream_triad(float* a, const float* b, const float* c, float s, size_t n);

/* a = b + s * c (triad.c). */
void native_triad(float* a, const float* b, const float* c, float s, size_t n);
/* The sum of in[0..n) (reduce.c): one total, in an order OpenMP and the
 * vectoriser choose (not the kernel's). */
float native_reduce(const float* in, size_t n);
/* Escape counts of a width x height grid of pixels (mandelbrot.c). */
void native_mandelbrot(unsigned* counts, unsigned width, unsigned height, unsigned max_iterations, float x0, float y0,
                       float step);
/* C = A * B for n x n row-major matrices, each element summed in ascending k (sgemm.c). */
void native_sgemm(const float* a, const float* b, float* c, unsigned n);
/* One five-point Jacobi step on a w x h grid, boundary copied (stencil.c). */
void native_stencil(const float* in, float* out, unsigned w, unsigned h);
/* y[i] = p(x[i]) in Horner form (horner_f64.c). */
void native_horner_f64(const double* x, double* y, size_t n, const double* coef, unsigned degree);
/* bins[b] = the count of bytes b in data[0..n) (histogram.c; bins need not be cleared). */
void native_histogram(const unsigned char* data, size_t n, int32_t bins[256]);
/* One damped-spring step over an array of structs (particles.c). */
void native_particles(const struct particle* in, struct particle* out, size_t n, float stiffness, float damping,
                      float dt);

#ifdef __cplusplus
}
#endif

#endif
