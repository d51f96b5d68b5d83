/* One damped-spring step over an array of structs, the kernel's arithmetic
 * in a parallel loop over the particles. */
#include "native_twins.h"

void native_particles(const struct particle* in, struct particle* out, size_t n, float stiffness, float damping,
                      float dt) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    struct particle p = in[i];
    if (!(p.flags & 1u)) {
      float fx = -stiffness * p.px - damping * p.vx;
      float fy = -stiffness * p.py - damping * p.vy;
      float fz = -stiffness * p.pz - damping * p.vz;
      p.vx += fx * p.inverse_mass * dt;
      p.vy += fy * p.inverse_mass * dt;
      p.vz += fz * p.inverse_mass * dt;
      p.px += p.vx * dt;
      p.py += p.vy * dt;
      p.pz += p.vz * dt;
    }
    p.flags += 2u;
    out[i] = p;
  }
}
