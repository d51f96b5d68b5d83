// out[i] = a[i] / b[i] on integers: a zero in b traps (integer divide by zero).
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(checked_divide, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(int, a), WASMGPU_CONST_PTR(int, b),
                      WASMGPU_PTR(int, out)) {
  out[i] = a[i] / b[i];
}
