/* Sum reduction, first level: a grid of G workgroups of 256; invocation g
 * sums in[g], in[g + G*256], ... and the workgroup adds its 256 sums in a
 * shared-memory tree, writing one partial sum per workgroup. The order of
 * the additions is fixed by n and G, so the CPU can reproduce the bits. */
#include <wasmgpu.h>

#define WG 256
WASMGPU_SHARED float sums[WG];

WASMGPU_DEFINE_KERNEL(reduce, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(float, in), WASMGPU_VALUE(unsigned, n),
                      WASMGPU_PTR(float, partial)) {
  (void)index;
  unsigned local = wasmgpu_local_index();
  unsigned stride = wasmgpu_workgroup_count(0) * WG;
  float sum = 0.0f;
  for (unsigned j = wasmgpu_global_id(0); j < n; j += stride) sum += in[j];
  sums[local] = sum;
  wasmgpu_barrier();
  for (unsigned half = WG / 2; half > 0; half >>= 1) {
    if (local < half) sums[local] += sums[local + half];
    wasmgpu_barrier();
  }
  if (local == 0) partial[wasmgpu_workgroup_id(0)] = sums[0];
}
