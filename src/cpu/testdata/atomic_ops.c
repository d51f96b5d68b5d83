/* Every wasmgpu atomic intrinsic, on buffer words and on shared words, with
 * results that do not depend on the order invocations run in: each
 * invocation applies each operation to a word of its own and keeps the old
 * value, and all of them add to, min and max one contended word whose final
 * value is fixed. The cpu device's bytes are compared with lavapipe's. */
#include <wasmgpu.h>

#define OPS 12
#define GROUP 64

WASMGPU_SHARED int shared_words[GROUP * OPS];
WASMGPU_SHARED int shared_total;

static void apply_all(volatile int *words, int v, int *old) {
  old[0] = wasmgpu_atomic_add(&words[0], v);
  old[1] = wasmgpu_atomic_sub(&words[1], v);
  old[2] = wasmgpu_atomic_and(&words[2], v);
  old[3] = wasmgpu_atomic_or(&words[3], v);
  old[4] = wasmgpu_atomic_xor(&words[4], v);
  old[5] = wasmgpu_atomic_min(&words[5], v);
  old[6] = wasmgpu_atomic_max(&words[6], v);
  old[7] = (int)wasmgpu_atomic_min_u((volatile unsigned *)&words[7], (unsigned)v);
  old[8] = (int)wasmgpu_atomic_max_u((volatile unsigned *)&words[8], (unsigned)v);
  old[9] = wasmgpu_atomic_exchange(&words[9], v);
  /* Equal to the word's value for even v (the swap happens), not for odd. */
  old[10] = wasmgpu_atomic_compare_exchange(&words[10], (v & 1) ? v + 1 : words[10], v);
  float f = wasmgpu_atomic_add_f32((volatile float *)&words[11], (float)v * 0.25f);
  old[11] = *(int *)&f;
}

/* words: GROUP*OPS*count ints (initial values), old: as many, totals: 3 ints
 * (sum, min, max; sum starts 0, min INT_MAX, max INT_MIN), values: count. */
WASMGPU_KERNEL(atomic_ops)
void atomic_ops(int index, int *words, int *old, int *totals, const int *values, int *shared_old, int *shared_words_out,
                int *shared_totals) {
  unsigned local = wasmgpu_local_index();
  int v = values[index];
  apply_all(&words[index * OPS], v, &old[index * OPS]);
  wasmgpu_atomic_add(&totals[0], v);
  wasmgpu_atomic_min(&totals[1], v);
  wasmgpu_atomic_max(&totals[2], v);
  /* The same on shared words, seeded from the buffer's initial values. */
  for (int k = 0; k < OPS; ++k) shared_words[local * OPS + k] = k * 1000 + (int)local - 7;
  if (local == 0) shared_total = 0;
  wasmgpu_barrier();
  apply_all(&shared_words[local * OPS], v, &shared_old[index * OPS]);
  wasmgpu_atomic_add(&shared_total, v);
  wasmgpu_barrier();
  for (int k = 0; k < OPS; ++k) shared_words_out[index * OPS + k] = shared_words[local * OPS + k];
  if (local == 0) shared_totals[wasmgpu_workgroup_id(0)] = shared_total;
}

/* A barrier-heavy kernel: `rounds` steps, each reading a neighbour's shared
 * word written before the last barrier. out[index] is the final word. */
WASMGPU_SHARED unsigned ring[2][1024];

WASMGPU_KERNEL(barrier_ring) void barrier_ring(int index, unsigned rounds, unsigned *out) {
  unsigned local = wasmgpu_local_index(), size = wasmgpu_workgroup_size(0);
  unsigned src = 0;
  ring[0][local] = (unsigned)index * 2654435761u;
  wasmgpu_barrier();
  for (unsigned r = 0; r < rounds; ++r) {
    ring[src ^ 1u][local] = ring[src][(local + 1) % size] * 31u + ring[src][local] + r;
    src ^= 1u;
    wasmgpu_barrier();
  }
  out[index] = ring[src][local];
}
