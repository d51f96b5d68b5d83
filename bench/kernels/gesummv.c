/* PolyBench's gesummv, y = alpha A x + beta B x for n x n row-major matrices
 * A and B. One workgroup of 256 invocations per row i (a grid of n
 * workgroups): invocation l sums A[i][j] x[j] and B[i][j] x[j] over
 * j = l, l + 256, l + 512, ..., so that neighbouring invocations read
 * neighbouring words; the workgroup then adds its 256 partial sums of each in
 * a shared-memory tree and invocation 0 writes y[i]. The order of the
 * additions is fixed by n, so the CPU can reproduce the bits. */
#include <wasmgpu.h>

#define WG 256
WASMGPU_SHARED float sums_a[WG];
WASMGPU_SHARED float sums_b[WG];

WASMGPU_DEFINE_KERNEL(gesummv, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, b),
                      WASMGPU_CONST_PTR(float, x), WASMGPU_PTR(float, y), WASMGPU_VALUE(float, alpha),
                      WASMGPU_VALUE(float, beta), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned local = wasmgpu_local_index(), i = wasmgpu_workgroup_id(0);
  const float *row_a = a + i * n, *row_b = b + i * n;
  float sum_a = 0.0f, sum_b = 0.0f;
  for (unsigned j = local; j < n; j += WG) {
    sum_a += row_a[j] * x[j];
    sum_b += row_b[j] * x[j];
  }
  sums_a[local] = sum_a;
  sums_b[local] = sum_b;
  wasmgpu_barrier();
  for (unsigned half = WG / 2; half > 0; half >>= 1) {
    if (local < half) {
      sums_a[local] += sums_a[local + half];
      sums_b[local] += sums_b[local + half];
    }
    wasmgpu_barrier();
  }
  if (local == 0) y[i] = alpha * sums_a[0] + beta * sums_b[0];
}
