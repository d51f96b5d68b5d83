#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats src; Floats dst; uint w; uint h; } p;
void main() {
  uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
  uint w = p.w, at = y * w + x;
  PREC float v = p.src.v[at];
  if (x > 0u && y > 0u && x + 1u < w && y + 1u < p.h)
    v = 0.25 * (p.src.v[at - w] + p.src.v[at + w] + p.src.v[at - 1u] + p.src.v[at + 1u]);
  p.dst.v[at] = v;
}
