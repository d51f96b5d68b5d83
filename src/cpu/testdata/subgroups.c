/* Every subgroup operation, in uniform control flow, on integers (exact on
 * any device with subgroups of 8, as lavapipe and the cpu device have) and
 * on floats whose sums are exact (small integers), so that the cpu device's
 * bytes can be compared with lavapipe's. */
#include <wasmgpu.h>

#define RESULTS 20

WASMGPU_KERNEL(subgroup_ops) void subgroup_ops(int index, const int *in, unsigned *out) {
  int v = in[index];
  float f = (float)(v % 1000);
  unsigned lane = wasmgpu_subgroup_invocation_id();
  unsigned *o = out + index * RESULTS;
  o[0] = wasmgpu_subgroup_size();
  o[1] = lane;
  o[2] = wasmgpu_subgroup_id();
  o[3] = wasmgpu_subgroup_count();
  o[4] = (unsigned)wasmgpu_subgroup_broadcast_i32(v, 3);
  o[5] = (unsigned)wasmgpu_subgroup_shuffle_i32(v, (lane + 1) % wasmgpu_subgroup_size());
  unsigned long long ballot = wasmgpu_subgroup_ballot(v & 1);
  o[6] = (unsigned)ballot;
  o[7] = (unsigned)(ballot >> 32);
  o[8] = (unsigned)wasmgpu_subgroup_all(v != 12345);
  o[9] = (unsigned)wasmgpu_subgroup_any(v % 5 == 0);
  o[10] = (unsigned)wasmgpu_subgroup_add_i32(v);
  o[11] = (unsigned)wasmgpu_subgroup_min_i32(v);
  o[12] = wasmgpu_subgroup_max_u32((unsigned)v);
  o[13] = (unsigned)wasmgpu_subgroup_inclusive_add_i32(v);
  o[14] = (unsigned)wasmgpu_subgroup_exclusive_add_i32(v);
  float sum = wasmgpu_subgroup_add_f32(f);
  float lo = wasmgpu_subgroup_min_f32(f), hi = wasmgpu_subgroup_max_f32(f);
  float scan = wasmgpu_subgroup_inclusive_add_f32(f);
  float shuffled = wasmgpu_subgroup_shuffle_f32(f, 7 - lane);
  o[15] = *(unsigned *)&sum;
  o[16] = *(unsigned *)&lo;
  o[17] = *(unsigned *)&hi;
  o[18] = *(unsigned *)&scan;
  o[19] = *(unsigned *)&shuffled;
}
