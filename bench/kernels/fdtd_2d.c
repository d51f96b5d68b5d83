/* PolyBench's fdtd-2d on n x n row-major fields ex, ey and hz (n a multiple
 * of 16), one time step t as two launches, one point per invocation on a grid
 * of 16 x 16 workgroups:
 *  - fdtd_2d_e: the electric fields from hz: ey[0][j] = t (PolyBench's
 *    _fict_[t]), ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j]) for i > 0, and
 *    ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1]) for j > 0;
 *  - fdtd_2d_h: hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] -
 *    ey[i][j]) for i, j < n - 1. */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(fdtd_2d_e, WASMGPU_VALUE(int, index), WASMGPU_PTR(float, ex), WASMGPU_PTR(float, ey),
                      WASMGPU_CONST_PTR(float, hz), WASMGPU_VALUE(unsigned, n), WASMGPU_VALUE(unsigned, t)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0), i = wasmgpu_global_id(1);
  unsigned at = i * n + j;
  if (i == 0)
    ey[at] = (float)t;
  else
    ey[at] = ey[at] - 0.5f * (hz[at] - hz[at - n]);
  if (j > 0) ex[at] = ex[at] - 0.5f * (hz[at] - hz[at - 1]);
}

WASMGPU_DEFINE_KERNEL(fdtd_2d_h, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, ex), WASMGPU_CONST_PTR(float, ey),
                      WASMGPU_PTR(float, hz), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0), i = wasmgpu_global_id(1);
  unsigned at = i * n + j;
  if (i + 1 < n && j + 1 < n) hz[at] = hz[at] - 0.7f * (ex[at + 1] - ex[at] + ey[at + n] - ey[at]);
}
