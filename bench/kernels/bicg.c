/* PolyBench's bicg (the BiCG sub-kernel), s = A^T r and q = A p for an n x n
 * row-major matrix A (n a multiple of 256), in two launches:
 *  - bicg_s: one invocation per column j (a grid of n / 256 workgroups of
 *    256): s[j] sums r[i] A[i][j] in ascending i, so that neighbouring
 *    invocations read neighbouring words of each row;
 *  - bicg_q: one workgroup of 256 per row i (a grid of n workgroups):
 *    invocation l sums A[i][j] p[j] over j = l, l + 256, ..., then the
 *    workgroup adds its 256 sums in a shared-memory tree. */
#include <wasmgpu.h>

#define WG 256
WASMGPU_SHARED float sums[WG];

WASMGPU_DEFINE_KERNEL(bicg_s, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, r),
                      WASMGPU_PTR(float, s), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned j = wasmgpu_global_id(0);
  float sum = 0.0f;
  for (unsigned i = 0; i < n; ++i) sum += r[i] * a[i * n + j];
  s[j] = sum;
}

WASMGPU_DEFINE_KERNEL(bicg_q, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, p),
                      WASMGPU_PTR(float, q), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned local = wasmgpu_local_index(), i = wasmgpu_workgroup_id(0);
  const float *row = a + i * n;
  float sum = 0.0f;
  for (unsigned j = local; j < n; j += WG) sum += row[j] * p[j];
  sums[local] = sum;
  wasmgpu_barrier();
  for (unsigned half = WG / 2; half > 0; half >>= 1) {
    if (local < half) sums[local] += sums[local + half];
    wasmgpu_barrier();
  }
  if (local == 0) q[i] = sums[0];
}
