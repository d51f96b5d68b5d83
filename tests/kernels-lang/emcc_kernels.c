/* A kernel module built by Emscripten (emcc -sSTANDALONE_WASM --no-entry) at
 * -O0 and -O2, with wasmgpu.h: a struct copied by value, a loop, an atomic
 * and the parameter record. emcc also exports its runtime's helpers
 * (stackSave, stackRestore, stackAlloc, emscripten_stack_*, _initialize);
 * tests/e2e/languages_test.cpp checks that those are not taken for kernels
 * and the kernels against a CPU reference. */
#include <wasmgpu.h>

struct pair {
  int lo, hi;
};

static struct pair bounds_of(const int *x, int from, int to) {
  struct pair p = {x[from], x[from]};
  for (int k = from + 1; k < to; ++k) {
    if (x[k] < p.lo) p.lo = x[k];
    if (x[k] > p.hi) p.hi = x[k];
  }
  return p;
}

/* range[i] = max - min of x[i .. i + width] (clipped at n); counts the
 * invocations whose range exceeds limit into over[0]. */
WASMGPU_DEFINE_KERNEL(spread, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(int, x), WASMGPU_PTR(int, range),
                      WASMGPU_VALUE(int, n), WASMGPU_VALUE(int, width), WASMGPU_VALUE(int, limit),
                      WASMGPU_PTR(int, over)) {
  if (i >= n) return;
  int end = i + width < n ? i + width : n;
  struct pair p = bounds_of(x, i, end);
  range[i] = p.hi - p.lo;
  if (range[i] > limit) wasmgpu_atomic_add(over, 1);
}
