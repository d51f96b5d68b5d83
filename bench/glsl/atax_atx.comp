#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// atax_atx of bench/kernels/atax.c: y = A^T tmp, one invocation per column.
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats a; Floats tmp; Floats y; uint n; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, n = p.n;
  PREC float sum = 0.0;
  for (uint i = 0u; i < n; ++i) sum += p.a.v[i * n + j] * p.tmp.v[i];
  p.y.v[j] = sum;
}
