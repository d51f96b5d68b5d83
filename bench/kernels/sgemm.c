/* SGEMM, C = A * B for n x n row-major matrices (n a multiple of 128).
 * Each workgroup of 256 invocations computes a 128 x 128 tile of C; per step
 * it stages a 128 x 8 tile of A (transposed) and an 8 x 128 tile of B in
 * shared memory, and every invocation accumulates an 8 x 8 block of C in
 * registers: rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with
 * tx, so that neighbouring invocations read neighbouring shared words.
 * Launch a grid of (n/128, n/128) workgroups of 256. Each element of C sums
 * its k products in ascending k, as the CPU reference does. */
#include <wasmgpu.h>

/* The fixed-count loops over i, j and q are unrolled so that acc, ra and rb
 * live in locals (registers) rather than on the shadow stack; the kk loop
 * stays a loop (the twins leave it to their compilers too). */
#define UNROLL _Pragma("unroll")

#define BM 128
#define BN 128
#define BK 8
WASMGPU_SHARED float a_tile[BK][BM]; /* a_tile[k][row] */
WASMGPU_SHARED float b_tile[BK][BN]; /* b_tile[k][col] */

WASMGPU_DEFINE_KERNEL(sgemm, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, b),
                      WASMGPU_PTR(float, c), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned t = wasmgpu_local_index();
  unsigned tx = t % 16, ty = t / 16;
  unsigned row0 = wasmgpu_workgroup_id(1) * BM, col0 = wasmgpu_workgroup_id(0) * BN;
  /* Staging: invocation t copies A[row0 + t/2][k + (t%2)*4 .. +4] and
   * B[k + t/32][col0 + (t%32)*4 .. +4]. */
  unsigned a_row = t >> 1, a_col = (t & 1) * 4;
  unsigned b_row = t >> 5, b_col = (t & 31) * 4;
  const float *a_src = a + (row0 + a_row) * n + a_col;
  const float *b_src = b + b_row * n + col0 + b_col;
  float acc[8][8];
  UNROLL
  for (int i = 0; i < 8; ++i) UNROLL
  for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  for (unsigned k = 0; k < n; k += BK) {
    /* Four words of A and four of B are loaded before any is stored, so that
     * each four can be one 16-byte load (when n is a multiple of 4), as the
     * twins' vec4 loads are. */
    float av[4], bv[4];
    UNROLL
    for (int q = 0; q < 4; ++q) av[q] = a_src[k + q];
    UNROLL
    for (int q = 0; q < 4; ++q) bv[q] = b_src[k * n + q];
    UNROLL
    for (int q = 0; q < 4; ++q) a_tile[a_col + q][a_row] = av[q];
    UNROLL
    for (int q = 0; q < 4; ++q) b_tile[b_row][b_col + q] = bv[q];
    wasmgpu_barrier();
    for (int kk = 0; kk < BK; ++kk) {
      float ra[8], rb[8];
      UNROLL
      for (int q = 0; q < 4; ++q) {
        ra[q] = a_tile[kk][ty * 4 + q];
        ra[q + 4] = a_tile[kk][64 + ty * 4 + q];
        rb[q] = b_tile[kk][tx * 4 + q];
        rb[q + 4] = b_tile[kk][64 + tx * 4 + q];
      }
      UNROLL
      for (int i = 0; i < 8; ++i) UNROLL
      for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
    }
    wasmgpu_barrier();
  }
  UNROLL
  for (int i = 0; i < 8; ++i) {
    unsigned row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    UNROLL
    for (int j = 0; j < 8; ++j) {
      unsigned col = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
      c[row * n + col] = acc[i][j];
    }
  }
}
