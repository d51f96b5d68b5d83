#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Doubles { double v[]; };
layout(push_constant) uniform Push { Doubles x; Doubles y; Doubles coef; uint degree; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  double v = p.x.v[i];
  PREC double acc = p.coef.v[p.degree];
  for (uint k = p.degree; k-- > 0u;) acc = acc * v + p.coef.v[k];
  p.y.v[i] = acc;
}
