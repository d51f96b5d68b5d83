// printf and assert from a kernel: the text reaches Python's standard output
// and the TrapError (docs/kernel-guide.md, "Printing and assert").
#include <assert.h>
#include <stdio.h>
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(print_assert, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(float, x)) {
  printf("x[%d] = %.2f\n", i, x[i]);
  assert(x[i] >= 0.0f);
}
