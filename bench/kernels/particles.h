/* The array-of-structs layout shared by the wasm kernel, the GLSL twin (a
 * struct of eight 4-byte members), the CUDA twin and the CPU reference. */
#ifndef BENCH_PARTICLES_H
#define BENCH_PARTICLES_H

struct particle {
  float px, py, pz;
  float vx, vy, vz;
  float inverse_mass;
  unsigned flags; /* bit 0: pinned; the step adds 2 (a generation count) */
};

#endif
