/* The wasm side of the device probe's concurrency checks: the twins of
 * raw_atomics.comp, raw_barrier.comp and raw_subgroups.comp, compiled to
 * wasm at build time and run through wasmgpu like any kernel. */
#include <wasmgpu.h>

WASMGPU_SHARED static unsigned tile[128];

WASMGPU_DEFINE_KERNEL(probe_atomic_add, WASMGPU_VALUE(int, i), WASMGPU_PTR(int, counter), WASMGPU_PTR(int, olds)) {
  olds[i] = wasmgpu_atomic_add(counter, 1);
}

/* Launched in workgroups of 128. */
WASMGPU_DEFINE_KERNEL(probe_barrier, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, results)) {
  unsigned lid = wasmgpu_local_index(), group = wasmgpu_workgroup_id(0);
  unsigned sum = 0;
  for (unsigned round = 0; round < 4; ++round) {
    tile[lid] = lid * 7u + group * 1000u + round;
    wasmgpu_barrier();
    sum += tile[(lid + 64u + round) % 128u];
    wasmgpu_barrier();
  }
  results[i] = sum;
}

WASMGPU_DEFINE_KERNEL(probe_subgroups, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, results)) {
  unsigned *out = results + (unsigned)i * 8u;
  unsigned lane = wasmgpu_subgroup_invocation_id();
  out[0] = wasmgpu_subgroup_size();
  out[1] = lane;
  out[2] = (unsigned)wasmgpu_subgroup_add_i32(1);
  out[3] = (unsigned)wasmgpu_subgroup_inclusive_add_i32(1);
  out[4] = (unsigned)wasmgpu_subgroup_exclusive_add_i32((int)lane);
  out[5] = (unsigned)wasmgpu_subgroup_broadcast_i32((int)(lane + 100u), 0);
  out[6] = (unsigned)wasmgpu_subgroup_shuffle_i32((int)(lane * 3u), lane ^ 1u);
  out[7] = (unsigned)__builtin_popcountll(wasmgpu_subgroup_ballot(1));
}
