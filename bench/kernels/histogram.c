/* 256-bin histogram of bytes: a grid of workgroups of 256 counts a
 * grid-stride share of the bytes into shared bins with atomics, reading one
 * byte per access, then adds its bins to the global ones. */
#include <wasmgpu.h>

#define BINS 256
WASMGPU_SHARED int local_bins[BINS];

WASMGPU_DEFINE_KERNEL(histogram, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(unsigned char, data),
                      WASMGPU_VALUE(unsigned, n), WASMGPU_PTR(int, bins)) {
  (void)index;
  unsigned local = wasmgpu_local_index();
  local_bins[local] = 0; /* one bin per invocation */
  wasmgpu_barrier();
  unsigned stride = wasmgpu_workgroup_count(0) * BINS;
  for (unsigned j = wasmgpu_global_id(0); j < n; j += stride) wasmgpu_atomic_add(&local_bins[data[j]], 1);
  wasmgpu_barrier();
  int count = local_bins[local];
  if (count != 0) wasmgpu_atomic_add(&bins[local], count);
}
