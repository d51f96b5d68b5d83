/* PolyBench's jacobi-2d, one sweep of a time step on an n x n grid (n a
 * multiple of 16): every interior point of `out` becomes 0.2 times the sum of
 * the point and its four neighbours in `in` (centre, left, right, below,
 * above, added in that order); boundary points are not written. One point per
 * invocation on a grid of 16 x 16 workgroups. A time step is two sweeps, A
 * into B and then B into A. */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(jacobi_2d, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, in), WASMGPU_PTR(float, out),
                      WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0), i = wasmgpu_global_id(1);
  if (i >= 1 && i + 1 < n && j >= 1 && j + 1 < n) {
    unsigned at = i * n + j;
    out[at] = 0.2f * (in[at] + in[at - 1] + in[at + 1] + in[at + n] + in[at - n]);
  }
}
