/* Two recursive functions, one calling the other at its deepest point: two
 * components of the call graph, each with its own count of active calls
 * (CompileOptions::max_call_depth), as on the SPIR-V back end. The stores
 * after each call keep clang from turning the recursion into loops. */
#include <wasmgpu.h>

__attribute__((noinline)) static unsigned inner(unsigned m, unsigned *scratch) {
  if (m == 0) return 0;
  unsigned below = inner(m - 1, scratch);
  scratch[m & 3] += below;
  return below + 2;
}

__attribute__((noinline)) static unsigned outer(unsigned n, unsigned m, unsigned *scratch) {
  if (n == 0) return inner(m, scratch);
  unsigned below = outer(n - 1, m, scratch);
  scratch[n & 3] ^= below;
  return below + 1;
}

/* out[i] = depths[2i] + 2 * depths[2i+1]: outer recurses depths[2i] deep,
 * then inner depths[2i+1] deep below it. */
WASMGPU_KERNEL(nested_depth) void nested_depth(int i, const unsigned *depths, unsigned *out) {
  unsigned scratch[4] = {0, 0, 0, 0};
  out[i] = outer(depths[2 * i], depths[2 * i + 1], scratch);
}
