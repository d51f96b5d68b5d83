/* Kernels whose results cannot depend on the workgroup size: launches of
 * them may be autotuned (launch_shape tests). */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(add_one, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(float, src), WASMGPU_PTR(float, dst)) {
  dst[i] = src[i] + 1.0f;
}

/* global_id and atomics do not see the workgroup size. */
WASMGPU_DEFINE_KERNEL(count_positive, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(float, src), WASMGPU_PTR(int, count)) {
  if (src[wasmgpu_global_id(0)] > 0.0f) wasmgpu_atomic_add(count, 1);
}
