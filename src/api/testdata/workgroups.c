/* Kernels whose results can depend on the workgroup size: launches of them
 * are never autotuned (launch_shape tests). */
#include <wasmgpu.h>

static unsigned lane(void) { return wasmgpu_local_id(0); }

WASMGPU_DEFINE_KERNEL(lane_of, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out)) { out[i] = lane(); }

WASMGPU_SHARED static float tile[1024];

WASMGPU_DEFINE_KERNEL(reverse_in_group, WASMGPU_VALUE(int, i), WASMGPU_PTR(float, data)) {
  unsigned l = wasmgpu_local_id(0), size = wasmgpu_workgroup_size(0);
  tile[l] = data[i];
  wasmgpu_barrier();
  data[i] = tile[size - 1 - l];
}

WASMGPU_DEFINE_KERNEL(subgroup_total, WASMGPU_VALUE(int, i), WASMGPU_PTR(int, data)) {
  data[i] = wasmgpu_subgroup_add_i32(data[i]);
}
