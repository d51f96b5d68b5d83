// 256-bin histogram of bytes: each workgroup counts into shared-memory bins
// with atomics (cheap: on-chip), then adds its bins to the global ones with
// one device atomic per non-empty bin.
#include <wasmgpu.h>

#define BINS 256
WASMGPU_SHARED int local_bins[BINS];

WASMGPU_KERNEL(histogram) void histogram(int index, const unsigned char *data, unsigned n, int *bins) {
  unsigned local = wasmgpu_local_index(), size = wasmgpu_workgroup_size(0);
  for (unsigned b = local; b < BINS; b += size) local_bins[b] = 0;
  wasmgpu_barrier();
  unsigned stride = wasmgpu_workgroup_count(0) * size;
  for (unsigned j = (unsigned)index; j < n; j += stride) wasmgpu_atomic_add(&local_bins[data[j]], 1);
  wasmgpu_barrier();
  for (unsigned b = local; b < BINS; b += size)
    if (local_bins[b] != 0) wasmgpu_atomic_add(&bins[b], local_bins[b]);
}
