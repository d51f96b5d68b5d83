/* PolyBench's correlation: the n x n correlation matrix of the n columns
 * (variables) of an n x n row-major data matrix (rows: observations; n a
 * multiple of 256), in four launches:
 *  - correlation_mean: mean[j] = (sum of data[i][j] in ascending i) / n, one
 *    invocation per column (a grid of n / 256 workgroups of 256);
 *  - correlation_std: stddev[j] = sqrt((sum of (data[i][j] - mean[j])^2) / n),
 *    or 1 where that is at most 0.1 (PolyBench's eps), likewise;
 *  - correlation_normalize: normal[i][j] = (data[i][j] - mean[j]) /
 *    (sqrt(n) stddev[j]), one element per invocation on 16 x 16 workgroups;
 *  - correlation_corr: corr[i][j] = corr[j][i] = sum over k of normal[k][i]
 *    normal[k][j] (ascending k) for i < j, and corr[i][i] = 1: the product
 *    normal^T normal in 16 x 16 shared-memory tiles, one element per
 *    invocation, for the tiles on and above the diagonal only (a grid of
 *    n/16 x n/16 workgroups, those below the diagonal return at once); each
 *    tile writes its elements and their mirror images. */
#include <math.h>
#include <wasmgpu.h>

#define EPS 0.1f
#define TILE 16

WASMGPU_DEFINE_KERNEL(correlation_mean, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, data),
                      WASMGPU_PTR(float, mean), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0);
  float sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) sum += data[i * n + j];
  mean[j] = sum / (float)n;
}

WASMGPU_DEFINE_KERNEL(correlation_std, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, data),
                      WASMGPU_CONST_PTR(float, mean), WASMGPU_PTR(float, stddev), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0);
  float m = mean[j], sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) {
    float d = data[i * n + j] - m;
    sum += d * d;
  }
  float s = sqrtf(sum / (float)n);
  stddev[j] = s <= EPS ? 1.0f : s;
}

WASMGPU_DEFINE_KERNEL(correlation_normalize, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, data),
                      WASMGPU_CONST_PTR(float, mean), WASMGPU_CONST_PTR(float, stddev), WASMGPU_PTR(float, normal),
                      WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0), i = wasmgpu_global_id(1);
  normal[i * n + j] = (data[i * n + j] - mean[j]) / (sqrtf((float)n) * stddev[j]);
}

WASMGPU_SHARED float left_tile[TILE][TILE];  /* left_tile[k][i]: normal[k0 + k][row0 + i] */
WASMGPU_SHARED float right_tile[TILE][TILE]; /* right_tile[k][j]: normal[k0 + k][col0 + j] */

WASMGPU_DEFINE_KERNEL(correlation_corr, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, normal),
                      WASMGPU_PTR(float, corr), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned tx = wasmgpu_local_id(0), ty = wasmgpu_local_id(1);
  unsigned row0 = wasmgpu_workgroup_id(1) * TILE, col0 = wasmgpu_workgroup_id(0) * TILE;
  if (row0 > col0) return; /* the mirror of a tile above the diagonal */
  unsigned row = row0 + ty, col = col0 + tx;
  float sum = 0.0f;
  for (unsigned k0 = 0; k0 < n; k0 += TILE) {
    left_tile[ty][tx] = normal[(k0 + ty) * n + row0 + tx];
    right_tile[ty][tx] = normal[(k0 + ty) * n + col0 + tx];
    wasmgpu_barrier();
    for (unsigned k = 0; k < TILE; ++k) sum += left_tile[k][ty] * right_tile[k][tx];
    wasmgpu_barrier();
  }
  if (row == col) sum = 1.0f;
  if (row <= col) {
    corr[row * n + col] = sum;
    corr[col * n + row] = sum;
  }
}
