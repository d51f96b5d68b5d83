/* Kernels of the host API tests (the *_test.cpp files of src/api), with parameter
 * metadata (WASMGPU_DEFINE_KERNEL). */
#include <stdint.h>
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(saxpy, WASMGPU_VALUE(int, i), WASMGPU_VALUE(float, a), WASMGPU_CONST_PTR(float, x),
                      WASMGPU_PTR(float, y)) {
  y[i] = a * x[i] + y[i];
}

/* data[i] *= factor */
WASMGPU_DEFINE_KERNEL(scale, WASMGPU_VALUE(int, i), WASMGPU_PTR(float, data), WASMGPU_VALUE(float, factor)) {
  data[i] *= factor;
}

/* out[i] = a[i] + b[i] */
WASMGPU_DEFINE_KERNEL(add, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(float, a), WASMGPU_CONST_PTR(float, b),
                      WASMGPU_PTR(float, out)) {
  out[i] = a[i] + b[i];
}

/* Traps with an integer divide by zero where data[i] == 0. */
WASMGPU_DEFINE_KERNEL(divide, WASMGPU_VALUE(int, i), WASMGPU_PTR(int, data), WASMGPU_VALUE(int, numerator)) {
  data[i] = numerator / data[i];
}

/* 64-bit and double parameters. */
WASMGPU_DEFINE_KERNEL(wide, WASMGPU_VALUE(int, i), WASMGPU_VALUE(int64_t, offset), WASMGPU_VALUE(double, factor),
                      WASMGPU_VALUE(unsigned, count), WASMGPU_PTR(double, out)) {
  if ((unsigned)i < count) out[i] = (double)(offset + i) * factor;
}

struct pair {
  float first;
  float second;
};

/* Struct elements: the metadata records an 8-byte pointee. */
WASMGPU_DEFINE_KERNEL(swap_pairs, WASMGPU_VALUE(int, i), WASMGPU_PTR(struct pair, pairs)) {
  float t = pairs[i].first;
  pairs[i].first = pairs[i].second;
  pairs[i].second = t;
}

/* State in the module's linear memory, shared by launches of its kernels. */
static int counters[256];

WASMGPU_DEFINE_KERNEL(bump, WASMGPU_VALUE(int, i), WASMGPU_VALUE(int, amount)) { counters[i & 255] += amount; }

WASMGPU_DEFINE_KERNEL(read_counters, WASMGPU_VALUE(int, i), WASMGPU_PTR(int, out)) { out[i] = counters[i & 255]; }

/* A local array the compiler keeps in memory: the kernel uses the shadow
 * stack, so its launches share the device's per-invocation stacks. */
WASMGPU_DEFINE_KERNEL(stack_sum, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(int, in), WASMGPU_PTR(int, out)) {
  volatile int window[8];
  for (int k = 0; k < 8; ++k) window[k] = in[i] * (k + 1);
  int sum = 0;
  for (int k = 0; k < 8; ++k) sum += window[k];
  out[i] = sum;
}

WASMGPU_DEFINE_KERNEL(nothing, WASMGPU_VALUE(int, i)) { (void)i; }

/* Runs for a while: `rounds` steps of a linear congruential generator per
 * invocation (tests of waiting, polling and timeouts). */
WASMGPU_DEFINE_KERNEL(spin, WASMGPU_VALUE(int, i), WASMGPU_VALUE(unsigned, rounds), WASMGPU_PTR(unsigned, out)) {
  unsigned x = (unsigned)i;
  for (unsigned r = 0; r < rounds; ++r) x = x * 1664525u + 1013904223u;
  out[i] = x;
}
