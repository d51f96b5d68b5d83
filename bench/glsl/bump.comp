#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// The launch-overhead twin of bench/kernels/bump.c.
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { Uints counter; } p;
void main() {
  if (gl_GlobalInvocationID.x == 0u) p.counter.v[0] += 1u;
}
