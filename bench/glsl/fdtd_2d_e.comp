#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// fdtd_2d_e of bench/kernels/fdtd_2d.c: ey and ex from hz, 16 x 16
// workgroups, one point each.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats ex; Floats ey; Floats hz; uint n; uint t; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, n = p.n;
  uint at = i * n + j;
  if (i == 0u) {
    p.ey.v[at] = float(p.t);
  } else {
    PREC float v = p.ey.v[at] - 0.5 * (p.hz.v[at] - p.hz.v[at - n]);
    p.ey.v[at] = v;
  }
  if (j > 0u) {
    PREC float v = p.ex.v[at] - 0.5 * (p.hz.v[at] - p.hz.v[at - 1u]);
    p.ex.v[at] = v;
  }
}
