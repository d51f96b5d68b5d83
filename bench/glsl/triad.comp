#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(push_constant) uniform Push { Floats a; Floats b; Floats c; float s; uint n; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) {
    PREC float r = p.b.v[i] + p.s * p.c.v[i];
    p.a.v[i] = r;
  }
}
