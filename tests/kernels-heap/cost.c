/* The cost of the device heap (docs/kernel-guide.md, "Heap allocation"): the
 * same work on a heap block and on the stack, measured with wasmgpu run --repeat. */
#include <stdlib.h>
#include <wasmgpu.h>
/* Each invocation: a 64-byte block from the heap, 16 words written and summed, freed. */
WASMGPU_DEFINE_KERNEL(with_malloc, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out)) {
  volatile unsigned *b = malloc(64);
  if (!b) {
    out[i] = ~0u;
    return;
  }
  unsigned s = 0;
#pragma clang loop unroll(disable)
  for (unsigned j = 0; j < 16; ++j) b[j] = (unsigned)i + j;
#pragma clang loop unroll(disable)
  for (unsigned j = 0; j < 16; ++j) s += b[j];
  free((void *)b);
  out[i] = s;
}
/* The same on the invocation's stack. */
WASMGPU_DEFINE_KERNEL(with_stack, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out)) {
  volatile unsigned b[16];
  unsigned s = 0;
#pragma clang loop unroll(disable)
  for (unsigned j = 0; j < 16; ++j) b[j] = (unsigned)i + j;
#pragma clang loop unroll(disable)
  for (unsigned j = 0; j < 16; ++j) s += b[j];
  out[i] = s;
}
