#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// fdtd_2d_h of bench/kernels/fdtd_2d.c: hz from ex and ey, 16 x 16
// workgroups, one point each.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats ex; Floats ey; Floats hz; uint n; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, n = p.n;
  uint at = i * n + j;
  if (i + 1u < n && j + 1u < n) {
    PREC float v = p.hz.v[at] - 0.7 * (p.ex.v[at + 1u] - p.ex.v[at] + p.ey.v[at + n] - p.ey.v[at]);
    p.hz.v[at] = v;
  }
}
