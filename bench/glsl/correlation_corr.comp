#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// correlation_corr of bench/kernels/correlation.c: normal^T normal in 16 x 16
// shared-memory tiles, the tiles on and above the diagonal only, each writing
// its elements and their mirror images; the diagonal is 1.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Push { Floats normal; Floats corr; uint n; } p;
shared float left_tile[16][16];
shared float right_tile[16][16];
void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, n = p.n;
  uint row0 = gl_WorkGroupID.y * 16u, col0 = gl_WorkGroupID.x * 16u;
  if (row0 > col0) return;
  uint row = row0 + ty, col = col0 + tx;
  PREC float sum = 0.0;
  for (uint k0 = 0u; k0 < n; k0 += 16u) {
    left_tile[ty][tx] = p.normal.v[(k0 + ty) * n + row0 + tx];
    right_tile[ty][tx] = p.normal.v[(k0 + ty) * n + col0 + tx];
    barrier();
    for (uint k = 0u; k < 16u; ++k) sum += left_tile[k][ty] * right_tile[k][tx];
    barrier();
  }
  if (row == col) sum = 1.0;
  if (row <= col) {
    p.corr.v[row * n + col] = sum;
    p.corr.v[col * n + row] = sum;
  }
}
