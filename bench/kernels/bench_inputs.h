/* Inputs of the bench workloads, generated the same way by the wasmgpu bench
 * (C++) and the CUDA twins, so that both solve the same problems. Values are
 * multiples of 2^-23 in [-1, 1): never subnormal. */
#ifndef BENCH_INPUTS_H
#define BENCH_INPUTS_H

#include <stdint.h>

static inline uint32_t bench_hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* Element i of input stream `seed`, in [-1, 1). */
static inline float bench_unit(uint32_t i, uint32_t seed) {
  return (float)(bench_hash(i * 2654435761u ^ (seed * 0x9e3779b9u)) >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

/* The byte i of the histogram input. */
static inline unsigned char bench_byte(uint32_t i) { return (unsigned char)(bench_hash(i ^ 0x51ed270bu) >> 24); }

/* Coefficient k of the f64 polynomial: small exact values in [-0.5, 0.5]. */
static inline double bench_coefficient(uint32_t k) { return (double)((int)((k * 37u) % 17u) - 8) / 16.0; }

/* Fixed parameters both sides use. */
#define BENCH_TRIAD_SCALAR 0.4375f
#define BENCH_HORNER_DEGREE 64u
#define BENCH_MANDELBROT_ITERATIONS 256u
#define BENCH_PARTICLE_STIFFNESS 0.75f
#define BENCH_PARTICLE_DAMPING 0.125f
#define BENCH_PARTICLE_DT 0.015625f
/* PolyBench workloads: time steps per run, and the scalars of gesummv and 2mm
 * (PolyBench's). */
#define BENCH_JACOBI_STEPS 10u
#define BENCH_FDTD_STEPS 10u
#define BENCH_ALPHA 1.5f
#define BENCH_BETA 1.2f

#endif
