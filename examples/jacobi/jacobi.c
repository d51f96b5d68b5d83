// A 2-D Jacobi stencil on a 2-D grid: one invocation per point, its (x, y)
// from the global id. Launch ceil(w/8) x ceil(h/8) workgroups of 8 x 8.
#include <wasmgpu.h>

#include "jacobi.h"

WASMGPU_KERNEL(jacobi_step) void jacobi_step(int index, const float *in, float *out, unsigned w, unsigned h) {
  (void)index;
  unsigned x = wasmgpu_global_id(0), y = wasmgpu_global_id(1);
  if (x < w && y < h) out[y * w + x] = jacobi_point(in, x, y, w, h);
}
