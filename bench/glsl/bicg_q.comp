#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// bicg_q of bench/kernels/bicg.c: q = A p, one workgroup of 256 per row,
// strided partial sums, then a shared-memory tree.
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats a; Floats pv; Floats q; uint n; } p;
shared float sums[256];
void main() {
  uint local = gl_LocalInvocationIndex, i = gl_WorkGroupID.x, n = p.n;
  uint row = i * n;
  PREC float sum = 0.0;
  for (uint j = local; j < n; j += 256u) sum += p.a.v[row + j] * p.pv.v[j];
  sums[local] = sum;
  barrier();
  for (uint half_ = 128u; half_ > 0u; half_ >>= 1) {
    if (local < half_) {
      PREC float t = sums[local] + sums[local + half_];
      sums[local] = t;
    }
    barrier();
  }
  if (local == 0u) p.q.v[i] = sums[0];
}
