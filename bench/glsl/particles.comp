#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
// bench/kernels/particles.h: eight 4-byte members, 32 bytes.
struct Particle { float px, py, pz, vx, vy, vz, inverse_mass; uint flags; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Particles { Particle v[]; };
layout(push_constant) uniform Push { Particles src; Particles dst; float stiffness; float damping; float dt; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  Particle q = p.src.v[i];
  if ((q.flags & 1u) == 0u) {
    PREC float fx = -p.stiffness * q.px - p.damping * q.vx;
    PREC float fy = -p.stiffness * q.py - p.damping * q.vy;
    PREC float fz = -p.stiffness * q.pz - p.damping * q.vz;
    PREC float vx = q.vx + fx * q.inverse_mass * p.dt;
    PREC float vy = q.vy + fy * q.inverse_mass * p.dt;
    PREC float vz = q.vz + fz * q.inverse_mass * p.dt;
    PREC float px = q.px + vx * p.dt;
    PREC float py = q.py + vy * p.dt;
    PREC float pz = q.pz + vz * p.dt;
    q.vx = vx; q.vy = vy; q.vz = vz;
    q.px = px; q.py = py; q.pz = pz;
  }
  q.flags += 2u;
  p.dst.v[i] = q;
}
