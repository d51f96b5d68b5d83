// Exclusive prefix sum of 32-bit unsigned integers (wrapping), in two kernels:
// scan_block scans each workgroup's slice in shared memory (Hillis-Steele,
// with a barrier between steps) and writes the slice's total; after the host
// has scanned those totals the same way, add_offsets adds each slice's offset.
#include <wasmgpu.h>

#define MAX_WORKGROUP 1024
WASMGPU_SHARED unsigned partial[2][MAX_WORKGROUP];  // double-buffered: 8 KiB

WASMGPU_KERNEL(scan_block)
void scan_block(int index, const unsigned *in, unsigned *out, unsigned *block_sums, unsigned n) {
  unsigned local = wasmgpu_local_index(), size = wasmgpu_workgroup_size(0);
  unsigned g = (unsigned)index;
  unsigned value = g < n ? in[g] : 0u;
  unsigned src = 0;
  partial[0][local] = value;
  wasmgpu_barrier();
  // After the step with `offset`, partial[src][i] is the sum of up to 2*offset
  // values ending at i. Every invocation runs every step: the bound is uniform.
  for (unsigned offset = 1; offset < size; offset <<= 1) {
    unsigned sum = partial[src][local];
    if (local >= offset) sum += partial[src][local - offset];
    partial[src ^ 1u][local] = sum;
    src ^= 1u;
    wasmgpu_barrier();
  }
  unsigned inclusive = partial[src][local];
  if (g < n) out[g] = inclusive - value;
  if (local == size - 1) block_sums[wasmgpu_workgroup_id(0)] = inclusive;
}

WASMGPU_KERNEL(add_offsets) void add_offsets(int index, unsigned *out, const unsigned *offsets, unsigned n) {
  unsigned g = (unsigned)index;
  if (g < n) out[g] += offsets[wasmgpu_workgroup_id(0)];
}
