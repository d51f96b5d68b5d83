#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// bench/kernels/gesummv.c: one workgroup of 256 per row, strided partial sums,
// then a shared-memory tree.
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats a; Floats b; Floats x; Floats y; float alpha; float beta; uint n; } p;
shared float sums_a[256];
shared float sums_b[256];
void main() {
  uint local = gl_LocalInvocationIndex, i = gl_WorkGroupID.x, n = p.n;
  uint row = i * n;
  PREC float sum_a = 0.0, sum_b = 0.0;
  for (uint j = local; j < n; j += 256u) {
    sum_a += p.a.v[row + j] * p.x.v[j];
    sum_b += p.b.v[row + j] * p.x.v[j];
  }
  sums_a[local] = sum_a;
  sums_b[local] = sum_b;
  barrier();
  for (uint half_ = 128u; half_ > 0u; half_ >>= 1) {
    if (local < half_) {
      PREC float ta = sums_a[local] + sums_a[local + half_];
      PREC float tb = sums_b[local] + sums_b[local + half_];
      sums_a[local] = ta;
      sums_b[local] = tb;
    }
    barrier();
  }
  if (local == 0u) {
    PREC float r = p.alpha * sums_a[0] + p.beta * sums_b[0];
    p.y.v[i] = r;
  }
}
