/* Particle i of the particles workload's input, generated the same way by the
 * wasmgpu bench (C++) and the CUDA twin. */
#ifndef BENCH_PARTICLE_INPUTS_H
#define BENCH_PARTICLE_INPUTS_H

#include "bench_inputs.h"
#include "particles.h"

static inline struct particle bench_particle(uint32_t i) {
  struct particle p;
  p.px = bench_unit(i, 8), p.py = bench_unit(i, 9), p.pz = bench_unit(i, 10);
  p.vx = bench_unit(i, 11), p.vy = bench_unit(i, 12), p.vz = bench_unit(i, 13);
  p.inverse_mass = 1.0f + 0.5f * bench_unit(i, 14);
  p.flags = (bench_hash(i) & 15u) == 0 ? 1u : 0u;
  return p;
}

#endif
