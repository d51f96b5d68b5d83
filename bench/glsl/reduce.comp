#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats data; Floats partial; uint n; } p;
shared float sums[256];
void main() {
  uint local = gl_LocalInvocationIndex;
  uint stride = gl_NumWorkGroups.x * 256u;
  PREC float sum = 0.0;
  for (uint j = gl_GlobalInvocationID.x; j < p.n; j += stride) sum += p.data.v[j];
  sums[local] = sum;
  barrier();
  for (uint half_ = 128u; half_ > 0u; half_ >>= 1) {
    if (local < half_) {
      PREC float t = sums[local] + sums[local + half_];
      sums[local] = t;
    }
    barrier();
  }
  if (local == 0u) p.partial.v[gl_WorkGroupID.x] = sums[0];
}
