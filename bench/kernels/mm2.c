/* PolyBench's 2mm, out = alpha A B C + beta D for n x n row-major matrices
 * (n a multiple of 16), as two launches of one tiled matrix product:
 *  - mm2_tmp: tmp = alpha (A B);
 *  - mm2_out: out = beta D + tmp C.
 * Each 16 x 16 workgroup computes a 16 x 16 tile of the product, one element
 * per invocation (a grid of n/16 x n/16 workgroups); per step of 16 it stages
 * a 16 x 16 tile of each operand in shared memory. Each element sums its n
 * products in ascending k. */
#include <wasmgpu.h>

#define TILE 16
WASMGPU_SHARED float left_tile[TILE][TILE];
WASMGPU_SHARED float right_tile[TILE][TILE];

/* Element (row, col) of x y, where (tx, ty) is the invocation's place in its
 * workgroup; every invocation of the workgroup calls it (it has barriers). */
static float tiled_product(const float *x, const float *y, unsigned n, unsigned row, unsigned col, unsigned tx,
                           unsigned ty) {
  float sum = 0.0f;
  for (unsigned k0 = 0; k0 < n; k0 += TILE) {
    left_tile[ty][tx] = x[row * n + k0 + tx];
    right_tile[ty][tx] = y[(k0 + ty) * n + col];
    wasmgpu_barrier();
    for (unsigned k = 0; k < TILE; ++k) sum += left_tile[ty][k] * right_tile[k][tx];
    wasmgpu_barrier();
  }
  return sum;
}

WASMGPU_DEFINE_KERNEL(mm2_tmp, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, b),
                      WASMGPU_PTR(float, tmp), WASMGPU_VALUE(float, alpha), WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned tx = wasmgpu_local_id(0), ty = wasmgpu_local_id(1);
  unsigned col = wasmgpu_global_id(0), row = wasmgpu_global_id(1);
  tmp[row * n + col] = alpha * tiled_product(a, b, n, row, col, tx, ty);
}

WASMGPU_DEFINE_KERNEL(mm2_out, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, tmp), WASMGPU_CONST_PTR(float, c),
                      WASMGPU_CONST_PTR(float, d), WASMGPU_PTR(float, out), WASMGPU_VALUE(float, beta),
                      WASMGPU_VALUE(unsigned, n)) {
  (void)index;
  unsigned tx = wasmgpu_local_id(0), ty = wasmgpu_local_id(1);
  unsigned col = wasmgpu_global_id(0), row = wasmgpu_global_id(1);
  float product = tiled_product(tmp, c, n, row, col, tx, ty);
  out[row * n + col] = beta * d[row * n + col] + product;
}
