#include <wasmgpu.h>

/* partial[i] = the sum of values[i*chunk .. i*chunk+chunk), in order. */
WASMGPU_DEFINE_KERNEL(sum_chunks, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(float, values), WASMGPU_VALUE(int, chunk),
                      WASMGPU_PTR(float, partial)) {
  float sum = 0.0f;
  for (int k = 0; k < chunk; ++k) sum += values[i * chunk + k];
  partial[i] = sum;
}
