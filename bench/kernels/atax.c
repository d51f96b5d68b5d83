/* PolyBench's atax, y = A^T (A x) for an n x n row-major matrix A (n a
 * multiple of 256), in two launches:
 *  - atax_ax: tmp = A x, one workgroup of 256 per row i (a grid of n
 *    workgroups): invocation l sums A[i][j] x[j] over j = l, l + 256, ...,
 *    then the workgroup adds its 256 sums in a shared-memory tree;
 *  - atax_atx: y = A^T tmp, one invocation per column j (a grid of n / 256
 *    workgroups of 256): y[j] sums A[i][j] tmp[i] in ascending i, so that
 *    neighbouring invocations read neighbouring words of each row. */
#include <wasmgpu.h>

#define WG 256
WASMGPU_SHARED float sums[WG];

WASMGPU_DEFINE_KERNEL(atax_ax, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, x),
                      WASMGPU_PTR(float, tmp), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned local = wasmgpu_local_index(), i = wasmgpu_workgroup_id(0);
  const float *row = a + i * n;
  float sum = 0.0f;
  for (unsigned j = local; j < n; j += WG) sum += row[j] * x[j];
  sums[local] = sum;
  wasmgpu_barrier();
  for (unsigned half = WG / 2; half > 0; half >>= 1) {
    if (local < half) sums[local] += sums[local + half];
    wasmgpu_barrier();
  }
  if (local == 0) tmp[i] = sums[0];
}

WASMGPU_DEFINE_KERNEL(atax_atx, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, tmp),
                      WASMGPU_PTR(float, y), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0);
  float sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) sum += a[i * n + j] * tmp[i];
  y[j] = sum;
}
