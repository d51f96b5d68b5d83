// C = A * B (row-major, A is m x k, B is k x n) with 16 x 16 tiles in shared
// memory: each workgroup loads one tile of A and one of B per step, waits at
// a barrier, and every invocation accumulates one element of C from them.
// Launch a grid of ceil(n/16) x ceil(m/16) workgroups of 16 x 16.
#include <wasmgpu.h>

#define TILE 16
// One column of padding: invocations reading a column hit different banks.
WASMGPU_SHARED float a_tile[TILE][TILE + 1];
WASMGPU_SHARED float b_tile[TILE][TILE + 1];

WASMGPU_DEFINE_KERNEL(matmul, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, b),
                      WASMGPU_PTR(float, c), WASMGPU_VALUE(unsigned, m), WASMGPU_VALUE(unsigned, n),
                      WASMGPU_VALUE(unsigned, k)) {
  (void)index;
  unsigned col = wasmgpu_global_id(0), row = wasmgpu_global_id(1);
  unsigned tx = wasmgpu_local_id(0), ty = wasmgpu_local_id(1);
  float sum = 0.0f;
  for (unsigned t = 0; t < k; t += TILE) {
    a_tile[ty][tx] = row < m && t + tx < k ? a[row * k + t + tx] : 0.0f;
    b_tile[ty][tx] = t + ty < k && col < n ? b[(t + ty) * n + col] : 0.0f;
    wasmgpu_barrier();
    for (unsigned j = 0; j < TILE; ++j) sum += a_tile[ty][j] * b_tile[j][tx];
    wasmgpu_barrier();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
