#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// mm2_out of bench/kernels/mm2.c: out = beta D + tmp C, tiled as mm2_tmp.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats tmp; Floats c; Floats d; Floats dst; float beta; uint n; } p;
shared float left_tile[16][16];
shared float right_tile[16][16];
void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y, n = p.n;
  PREC float sum = 0.0;
  for (uint k0 = 0u; k0 < n; k0 += 16u) {
    left_tile[ty][tx] = p.tmp.v[row * n + k0 + tx];
    right_tile[ty][tx] = p.c.v[(k0 + ty) * n + col];
    barrier();
    for (uint k = 0u; k < 16u; ++k) sum += left_tile[ty][k] * right_tile[k][tx];
    barrier();
  }
  PREC float r = p.beta * p.d.v[row * n + col] + sum;
  p.dst.v[row * n + col] = r;
}
