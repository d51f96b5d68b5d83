/* Kernels that trap on some invocations, for the trap-report tests. */
#include <stdint.h>
#include <wasmgpu.h>

WASMGPU_KERNEL(divide) void divide(int i, const int32_t *num, const int32_t *den, int32_t *out) {
  out[i] = num[i] / den[i];
}

/* The same in 64 bits: i64.div_s, which traps on a zero divisor and on INT64_MIN / -1. */
WASMGPU_KERNEL(divide64) void divide64(int i, const int64_t *num, const int64_t *den, int64_t *out) {
  out[i] = num[i] / den[i];
}

WASMGPU_KERNEL(read_at) void read_at(int i, const uint32_t *addresses, uint32_t *out) {
  out[i] = *(const uint32_t *)(uintptr_t)addresses[i];
}

WASMGPU_KERNEL(trap_when) void trap_when(int i, const uint32_t *flags, uint32_t *out) {
  if (flags[i]) __builtin_trap();
  out[i] = (uint32_t)i;
}

/* Waits for the word at a per-invocation address to read 7. A bad address
 * traps at the first read, and the general path then gives 0 on every read:
 * the loop ends only because a trapped invocation leaves every loop at its
 * next back-edge. */
WASMGPU_KERNEL(spin_until_seven) void spin_until_seven(int i, const uint32_t *addresses, uint32_t *out) {
  const volatile uint32_t *word = (const volatile uint32_t *)(uintptr_t)addresses[i];
  uint32_t reads = 1;
  while (*word != 7u) ++reads;
  out[i] = reads;
}
