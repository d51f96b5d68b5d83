/* STREAM triad: a = b + s * c, one element per invocation (workgroups of 256). */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(triad, WASMGPU_VALUE(int, i), WASMGPU_PTR(float, a), WASMGPU_CONST_PTR(float, b),
                      WASMGPU_CONST_PTR(float, c), WASMGPU_VALUE(float, s), WASMGPU_VALUE(unsigned, n)) {
  if ((unsigned)i < n) a[i] = b[i] + s * c[i];
}
