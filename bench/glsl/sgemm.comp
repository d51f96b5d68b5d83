#version 460
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
// The algorithm of bench/kernels/sgemm.c: 128 x 128 tiles of C per workgroup
// of 256, 8-deep k steps through shared memory, an 8 x 8 register block per
// invocation. Loads from global memory are vec4s (n is a multiple of 128).
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s { vec4 v[]; };
layout(push_constant) uniform Push { Vec4s a; Vec4s b; Floats c; uint n; } p;
shared float a_tile[8][128];
shared float b_tile[8][128];
void main() {
  uint t = gl_LocalInvocationIndex;
  uint tx = t % 16u, ty = t / 16u;
  uint n = p.n;
  uint row0 = gl_WorkGroupID.y * 128u, col0 = gl_WorkGroupID.x * 128u;
  uint a_row = t >> 1, a_col = (t & 1u) * 4u;
  uint b_row = t >> 5, b_col = (t & 31u) * 4u;
  uint a_at = ((row0 + a_row) * n + a_col) / 4u;
  uint b_at = (b_row * n + col0 + b_col) / 4u;
  PREC float acc[8][8];
  [[unroll]] for (int i = 0; i < 8; ++i)
    [[unroll]] for (int j = 0; j < 8; ++j) acc[i][j] = 0.0;
  for (uint k = 0u; k < n; k += 8u) {
    vec4 av = p.a.v[a_at + k / 4u];
    vec4 bv = p.b.v[b_at + k * n / 4u];
    a_tile[a_col + 0u][a_row] = av.x;
    a_tile[a_col + 1u][a_row] = av.y;
    a_tile[a_col + 2u][a_row] = av.z;
    a_tile[a_col + 3u][a_row] = av.w;
    b_tile[b_row][b_col + 0u] = bv.x;
    b_tile[b_row][b_col + 1u] = bv.y;
    b_tile[b_row][b_col + 2u] = bv.z;
    b_tile[b_row][b_col + 3u] = bv.w;
    barrier();
    for (uint kk = 0u; kk < 8u; ++kk) {
      float ra[8], rb[8];
      [[unroll]] for (uint q = 0u; q < 4u; ++q) {
        ra[q] = a_tile[kk][ty * 4u + q];
        ra[q + 4u] = a_tile[kk][64u + ty * 4u + q];
        rb[q] = b_tile[kk][tx * 4u + q];
        rb[q + 4u] = b_tile[kk][64u + tx * 4u + q];
      }
      [[unroll]] for (int i = 0; i < 8; ++i)
        [[unroll]] for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
    }
    barrier();
  }
  [[unroll]] for (uint i = 0u; i < 8u; ++i) {
    uint row = row0 + (i < 4u ? ty * 4u + i : 64u + ty * 4u + i - 4u);
    [[unroll]] for (uint j = 0u; j < 8u; ++j) {
      uint col = col0 + (j < 4u ? tx * 4u + j : 64u + tx * 4u + j - 4u);
      p.c.v[row * n + col] = acc[i][j];
    }
  }
}
