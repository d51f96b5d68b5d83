/* One damped-spring integration step over an array of structs, one particle
 * per invocation (workgroups of 256): reads a whole struct, writes a whole struct. */
#include <wasmgpu.h>

#include "particles.h"

WASMGPU_DEFINE_KERNEL(particles, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(struct particle, in),
                      WASMGPU_PTR(struct particle, out), WASMGPU_VALUE(float, stiffness), WASMGPU_VALUE(float, damping),
                      WASMGPU_VALUE(float, dt)) {
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
