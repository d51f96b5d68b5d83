#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// bicg_s of bench/kernels/bicg.c: s = A^T r, one invocation per column.
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats a; Floats r; Floats s; uint n; } p;
void main() {
  uint j = gl_GlobalInvocationID.x, n = p.n;
  PREC float sum = 0.0;
  for (uint i = 0u; i < n; ++i) sum += p.r.v[i] * p.a.v[i * n + j];
  p.s.v[j] = sum;
}
