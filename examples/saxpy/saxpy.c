/* y = a*x + y, one element per invocation. */
#include <wasmgpu.h>

WASMGPU_KERNEL(saxpy) void saxpy(int i, float a, const float *x, float *y) {
  y[i] = a * x[i] + y[i];
}
