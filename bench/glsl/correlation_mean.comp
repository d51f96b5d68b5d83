#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// correlation_mean of bench/kernels/correlation.c: one invocation per column.
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats data; Floats mean; uint n; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, n = p.n;
  PREC float sum = 0.0;
  for (uint i = 0u; i < n; ++i) sum += p.data.v[i * n + j];
  PREC float m = sum / float(n);
  p.mean.v[j] = m;
}
