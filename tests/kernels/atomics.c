/* Threads-proposal atomics written as C11 atomics (compiled with -matomics):
 * a histogram counted in shared memory and flushed to device memory, with
 * 64-bit, 16-bit and 8-bit atomics on device memory, byte atomics on shared
 * memory and a compare-exchange loop. tests/e2e/atomics_test.cpp checks the
 * results against a CPU count. Launched as a grid of whole workgroups. */
#include <stdatomic.h>
#include <wasmgpu.h>

#define BINS 64

WASMGPU_SHARED _Atomic unsigned local_bins[BINS];
WASMGPU_SHARED _Atomic unsigned char local_parity[BINS];

WASMGPU_KERNEL(atomic_histogram)
void atomic_histogram(int index, const unsigned *values, unsigned n, _Atomic unsigned *bins, _Atomic unsigned *parity,
                      _Atomic unsigned long long *sum, _Atomic long long *max, _Atomic unsigned short *halves,
                      _Atomic unsigned char *seen) {
  unsigned l = wasmgpu_local_index();
  for (unsigned b = l; b < BINS; b += wasmgpu_workgroup_size(0)) {
    atomic_store_explicit(&local_bins[b], 0, memory_order_relaxed);
    atomic_store_explicit(&local_parity[b], 0, memory_order_relaxed);
  }
  wasmgpu_barrier();
  if ((unsigned)index < n) {
    unsigned v = values[index];
    atomic_fetch_add(&local_bins[v % BINS], 1);
    atomic_fetch_xor(&local_parity[v % BINS], 1);
    atomic_fetch_add(sum, (unsigned long long)v);
    atomic_fetch_add(&halves[v % 16], 1);
    atomic_fetch_or(&seen[v % 32], (unsigned char)(1u << (v / 32 % 8)));
    long long candidate = (long long)v * 1000003;
    long long current = atomic_load(max);
    while (candidate > current && !atomic_compare_exchange_weak(max, &current, candidate)) {
    }
  }
  wasmgpu_barrier();
  for (unsigned b = l; b < BINS; b += wasmgpu_workgroup_size(0)) {
    unsigned count = atomic_load_explicit(&local_bins[b], memory_order_relaxed);
    if (count) atomic_fetch_add(&bins[b], count);
    atomic_fetch_add(&parity[b], atomic_load(&local_parity[b]));
  }
}

/* A misaligned atomic traps. */
WASMGPU_KERNEL(misaligned_atomic) void misaligned_atomic(int index, char *p) {
  atomic_fetch_add((_Atomic int *)(p + 4 * index + (index == 5)), 1);
}

/* memory.atomic.notify (clang's builtin; wasm only, the host build leaves the
 * body empty): no invocation can wait, so it wakes none and returns 0, after
 * its address's checks; invocation 5's address is misaligned when `skew`. */
WASMGPU_KERNEL(atomic_notify) void atomic_notify(int index, int *p, unsigned *woken, int skew) {
#ifdef __wasm__
  int *at = (int *)((char *)(p + index) + (skew && index == 5));
  woken[index] = __builtin_wasm_memory_atomic_notify(at, 1);
#else
  (void)index, (void)p, (void)woken, (void)skew;
#endif
}
