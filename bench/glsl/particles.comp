#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
// bench/kernels/particles.h: eight 4-byte members, 32 bytes, moved as two
// vec4s (a struct of eight scalars is read and written member by member on
// NVIDIA, at under half the bandwidth).
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s { vec4 v[]; };
layout(push_constant) uniform Push { Vec4s src; Vec4s dst; float stiffness; float damping; float dt; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 a = p.src.v[2u * i], b = p.src.v[2u * i + 1u];
  // a = (px, py, pz, vx), b = (vy, vz, inverse_mass, flags bits)
  uint flags = floatBitsToUint(b.w);
  if ((flags & 1u) == 0u) {
    PREC float fx = -p.stiffness * a.x - p.damping * a.w;
    PREC float fy = -p.stiffness * a.y - p.damping * b.x;
    PREC float fz = -p.stiffness * a.z - p.damping * b.y;
    PREC float vx = a.w + fx * b.z * p.dt;
    PREC float vy = b.x + fy * b.z * p.dt;
    PREC float vz = b.y + fz * b.z * p.dt;
    PREC float px = a.x + vx * p.dt;
    PREC float py = a.y + vy * p.dt;
    PREC float pz = a.z + vz * p.dt;
    a = vec4(px, py, pz, vx);
    b.x = vy;
    b.y = vz;
  }
  b.w = uintBitsToFloat(flags + 2u);
  p.dst.v[2u * i] = a;
  p.dst.v[2u * i + 1u] = b;
}
