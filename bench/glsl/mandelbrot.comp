#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Uints counts; uint width; uint max_iterations; float x0; float y0; float step; } p;
void main() {
  uint px = gl_GlobalInvocationID.x, py = gl_GlobalInvocationID.y;
  PREC float cx = p.x0 + float(px) * p.step;
  PREC float cy = p.y0 + float(py) * p.step;
  PREC float x = 0.0, y = 0.0;
  uint k = 0u;
  while (k < p.max_iterations) {
    PREC float xx = x * x;
    PREC float yy = y * y;
    PREC float rr = xx + yy;
    if (rr > 4.0) break;
    PREC float xy = x * y;
    x = xx - yy + cx;
    y = xy + xy + cy;
    ++k;
  }
  p.counts.v[py * p.width + px] = k;
}
