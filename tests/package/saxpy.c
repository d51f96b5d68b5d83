#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(saxpy, WASMGPU_VALUE(int, i), WASMGPU_VALUE(float, a), WASMGPU_CONST_PTR(float, x),
                      WASMGPU_PTR(float, y)) {
  y[i] = a * x[i] + y[i];
}
