#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// mm2_tmp of bench/kernels/mm2.c: tmp = alpha (A B), a 16 x 16 tile per
// workgroup, one element per invocation, 16-deep k steps through shared
// memory.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats a; Floats b; Floats tmp; float alpha; uint n; } p;
shared float left_tile[16][16];
shared float right_tile[16][16];
void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y, n = p.n;
  PREC float sum = 0.0;
  for (uint k0 = 0u; k0 < n; k0 += 16u) {
    left_tile[ty][tx] = p.a.v[row * n + k0 + tx];
    right_tile[ty][tx] = p.b.v[(k0 + ty) * n + col];
    barrier();
    for (uint k = 0u; k < 16u; ++k) sum += left_tile[ty][k] * right_tile[k][tx];
    barrier();
  }
  PREC float r = p.alpha * sum;
  p.tmp.v[row * n + col] = r;
}
