/* 2-D five-point Jacobi step on a w x h grid (multiples of 16), one point per
 * invocation on a grid of 16 x 16 workgroups: interior points become the mean
 * of their four neighbours, boundary points keep their value. */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(stencil, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, in), WASMGPU_PTR(float, out),
                      WASMGPU_VALUE(unsigned, w), WASMGPU_VALUE(unsigned, h)) {
  (void)index;
  unsigned x = wasmgpu_global_id(0), y = wasmgpu_global_id(1);
  unsigned at = y * w + x;
  float v = in[at];
  if (x > 0 && y > 0 && x + 1 < w && y + 1 < h) v = 0.25f * (in[at - w] + in[at + w] + in[at - 1] + in[at + 1]);
  out[at] = v;
}
