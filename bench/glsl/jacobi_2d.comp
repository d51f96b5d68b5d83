#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// One sweep of bench/kernels/jacobi_2d.c: 16 x 16 workgroups, one point each.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats src; Floats dst; uint n; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, n = p.n;
  if (i >= 1u && i + 1u < n && j >= 1u && j + 1u < n) {
    uint at = i * n + j;
    PREC float v = 0.2 * (p.src.v[at] + p.src.v[at - 1u] + p.src.v[at + 1u] + p.src.v[at + n] + p.src.v[at - n]);
    p.dst.v[at] = v;
  }
}
