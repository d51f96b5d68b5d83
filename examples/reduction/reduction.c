// Sum of n floats: each workgroup reduces its share in three levels (a
// grid-stride loop per invocation, a subgroup reduction, shared memory across
// the subgroups) and writes one partial sum; launching the kernel again over
// the partial sums with one workgroup gives the total.
#include <wasmgpu.h>

// One slot per subgroup: at most 1024 invocations / 8 per subgroup.
WASMGPU_SHARED float subgroup_sums[128];

WASMGPU_KERNEL(reduce_sum) void reduce_sum(int index, const float *in, unsigned n, float *partial_sums) {
  unsigned stride = wasmgpu_workgroup_count(0) * wasmgpu_workgroup_size(0);
  float sum = 0.0f;
  for (unsigned j = (unsigned)index; j < n; j += stride) sum += in[j];
  sum = wasmgpu_subgroup_add_f32(sum);
  if (wasmgpu_subgroup_invocation_id() == 0) subgroup_sums[wasmgpu_subgroup_id()] = sum;
  wasmgpu_barrier();
  if (wasmgpu_local_index() == 0) {
    float total = 0.0f;
    for (unsigned s = 0; s < wasmgpu_subgroup_count(); ++s) total += subgroup_sums[s];
    partial_sums[wasmgpu_workgroup_id(0)] = total;
  }
}
