/* Workgroup synchronisation for the WGSL back end (webgpu.compare_vulkan_sync,
 * js/test/compare_with_vulkan.mjs --suite sync): barriers, workgroup-shared
 * memory, the 32-bit atomics of wasmgpu.h and C11's (compiled with
 * -matomics), and subgroup operations, each with results that do not depend
 * on the order in which invocations run, so that Dawn and Vulkan must give
 * the same bytes. Launched 1-D in workgroups of 64. */
#include <stdatomic.h>
#include <wasmgpu.h>

#define TILE 256

WASMGPU_SHARED unsigned tile[TILE];
WASMGPU_SHARED unsigned char marks[TILE];
WASMGPU_SHARED unsigned local_bins[32];
WASMGPU_SHARED int local_extremes[4];
WASMGPU_SHARED _Atomic unsigned short local_halves[8];

/* A tree reduction through shared memory, one barrier per level; each
 * workgroup writes its sum and, from the bytes one invocation stored, the
 * word its neighbours' bytes share (sub-word stores into shared words). */
WASMGPU_KERNEL(workgroup_sum)
void workgroup_sum(int index, const unsigned *in, unsigned *sums, unsigned *words) {
  unsigned l = wasmgpu_local_index();
  tile[l] = in[index];
  marks[l] = (unsigned char)(in[index] * 7 + l);
  wasmgpu_barrier();
  for (unsigned half = wasmgpu_workgroup_size(0) / 2; half > 0; half >>= 1) {
    if (l < half) tile[l] += tile[l + half];
    wasmgpu_barrier();
  }
  if (l == 0) sums[wasmgpu_workgroup_id(0)] = tile[0];
  words[index] = ((const unsigned *)marks)[l / 4];
}

/* A histogram with contention: counts in shared memory with atomics, then
 * each workgroup adds its counts to device memory with atomics; signed and
 * unsigned min and max, in shared memory (flushed once) and on device
 * memory; f32 additions of 1.0 (exact, so the sum is the same in any order). */
WASMGPU_KERNEL(atomic_histogram)
void atomic_histogram(int index, const unsigned *values, unsigned n, unsigned *bins, int *extremes, float *count_f) {
  unsigned l = wasmgpu_local_index();
  if (l < 32) local_bins[l] = 0;
  if (l == 0) {
    local_extremes[0] = 0x7fffffff;
    local_extremes[1] = (int)0x80000000;
    local_extremes[2] = -1;
    local_extremes[3] = 0;
  }
  wasmgpu_barrier();
  if ((unsigned)index < n) {
    unsigned v = values[index];
    wasmgpu_atomic_add((volatile int *)&local_bins[v % 32], 1);
    int s = (int)(v * 2654435761u);
    wasmgpu_atomic_min(&local_extremes[0], s);
    wasmgpu_atomic_max(&local_extremes[1], s);
    wasmgpu_atomic_min_u((volatile unsigned *)&local_extremes[2], v);
    wasmgpu_atomic_max_u((volatile unsigned *)&local_extremes[3], v);
    wasmgpu_atomic_min(&extremes[4], s ^ 0x5555);
    wasmgpu_atomic_max(&extremes[5], s ^ 0x5555);
    wasmgpu_atomic_min_u((volatile unsigned *)&extremes[6], v ^ 0x80000000u);
    wasmgpu_atomic_max_u((volatile unsigned *)&extremes[7], v ^ 0x80000000u);
    wasmgpu_atomic_sub(&extremes[8], (int)(v & 0xff));
    wasmgpu_atomic_xor(&extremes[9], (int)v);
    wasmgpu_atomic_or(&extremes[10], (int)(1u << (v % 31)));
    wasmgpu_atomic_and(&extremes[11], (int)~(1u << (v % 29)));
    wasmgpu_atomic_add_f32(count_f, 1.0f);
  }
  wasmgpu_barrier();
  if (l < 32) wasmgpu_atomic_add((volatile int *)&bins[l], (int)local_bins[l]);
  if (l == 0) wasmgpu_atomic_min(&extremes[0], local_extremes[0]);
  if (l == 1) wasmgpu_atomic_max(&extremes[1], local_extremes[1]);
  if (l == 2) wasmgpu_atomic_min_u((volatile unsigned *)&extremes[2], (unsigned)local_extremes[2]);
  if (l == 3) wasmgpu_atomic_max_u((volatile unsigned *)&extremes[3], (unsigned)local_extremes[3]);
}

/* Compare-exchange and exchange without contention (each invocation its own
 * word: the old values are known), and a compare-exchange loop that adds
 * with contention (the total is known). */
WASMGPU_KERNEL(compare_exchange)
void compare_exchange(int index, int *slots, int *olds, int *total) {
  volatile int *slot = &slots[index];
  *slot = index;
  int hit = wasmgpu_atomic_compare_exchange(slot, index, 3 * index + 1); /* succeeds: index */
  int miss = wasmgpu_atomic_compare_exchange(slot, index, -5);           /* fails: 3 * index + 1 */
  int swapped = wasmgpu_atomic_exchange(slot, index ^ 0x1234);           /* 3 * index + 1 */
  olds[3 * index] = hit;
  olds[3 * index + 1] = miss;
  olds[3 * index + 2] = swapped;
  int seen = *(volatile int *)total;
  for (;;) {
    int was = wasmgpu_atomic_compare_exchange(total, seen, seen + index);
    if (was == seen) break;
    seen = was;
  }
}

/* C11 atomics: the threads proposal's 32-, 16- and 8-bit instructions on
 * device and shared memory (a 64-bit one is refused by the WGSL back end). */
WASMGPU_KERNEL(c11_atomics)
void c11_atomics(int index, _Atomic unsigned *words, _Atomic unsigned char *bytes, _Atomic unsigned short *halves) {
  unsigned l = wasmgpu_local_index();
  if (l < 8) atomic_store_explicit(&local_halves[l], 0, memory_order_relaxed);
  wasmgpu_barrier();
  atomic_fetch_add(&words[index % 8], (unsigned)index);
  atomic_fetch_or(&words[8 + index % 4], 1u << (index % 32));
  atomic_fetch_add(&bytes[index % 16], 3);
  atomic_fetch_xor(&bytes[16 + index % 8], (unsigned char)index);
  atomic_fetch_add(&halves[index % 4], (unsigned short)(index * 5));
  atomic_fetch_add(&local_halves[index % 8], (unsigned short)index);
  unsigned char expected = 0;
  atomic_compare_exchange_strong(&bytes[32 + index], &expected, (unsigned char)(index + 1));
  wasmgpu_barrier();
  if (l < 8) atomic_fetch_add(&halves[4 + l], atomic_load(&local_halves[l]));
}

/* Subgroup operations where every invocation of the subgroup takes part, and
 * a sum in divergent control flow (over the active invocations). */
WASMGPU_KERNEL(subgroup_ops)
void subgroup_ops(int index, const unsigned *in, unsigned *out) {
  unsigned v = in[index];
  unsigned lane = wasmgpu_subgroup_invocation_id();
  unsigned size = wasmgpu_subgroup_size();
  unsigned *o = out + 16 * index;
  o[0] = (unsigned)wasmgpu_subgroup_add_i32((int)v);
  o[1] = (unsigned)wasmgpu_subgroup_broadcast_i32((int)v, 0);
  o[2] = (unsigned)wasmgpu_subgroup_shuffle_i32((int)v, (lane + 1) % size);
  o[3] = (unsigned)wasmgpu_subgroup_min_i32((int)v);
  o[4] = (unsigned)wasmgpu_subgroup_max_i32((int)v);
  o[5] = wasmgpu_subgroup_min_u32(v);
  o[6] = wasmgpu_subgroup_max_u32(v);
  o[7] = (unsigned)wasmgpu_subgroup_inclusive_add_i32((int)v);
  o[8] = (unsigned)wasmgpu_subgroup_exclusive_add_i32((int)v);
  unsigned long long ballot = wasmgpu_subgroup_ballot(v & 1);
  o[9] = (unsigned)ballot;
  o[10] = (unsigned)(ballot >> 32);
  o[11] = (unsigned)wasmgpu_subgroup_all(v != 7) | (unsigned)wasmgpu_subgroup_any(v == 7) << 1;
  o[12] = size | lane << 8;
  o[13] = wasmgpu_subgroup_id() | wasmgpu_subgroup_count() << 16;
  union {
    float f;
    unsigned u;
  } bits = {.f = wasmgpu_subgroup_shuffle_f32((float)v * 0.5f, lane ^ 1)};
  o[14] = bits.u;
  o[15] = (v & 2) ? (unsigned)wasmgpu_subgroup_add_i32((int)v) : 0;
}
