#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// correlation_normalize of bench/kernels/correlation.c: 16 x 16 workgroups,
// one element each.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats data; Floats mean; Floats stddev; Floats normal; uint n; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y, n = p.n;
  PREC float v = (p.data.v[i * n + j] - p.mean.v[j]) / (sqrt(float(n)) * p.stddev.v[j]);
  p.normal.v[i * n + j] = v;
}
