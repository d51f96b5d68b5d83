#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// correlation_std of bench/kernels/correlation.c: one invocation per column.
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats data; Floats mean; Floats stddev; uint n; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, n = p.n;
  float m = p.mean.v[j];
  PREC float sum = 0.0;
  for (uint i = 0u; i < n; ++i) {
    PREC float d = p.data.v[i * n + j] - m;
    sum += d * d;
  }
  PREC float s = sqrt(sum / float(n));
  p.stddev.v[j] = s <= 0.1 ? 1.0 : s;
}
