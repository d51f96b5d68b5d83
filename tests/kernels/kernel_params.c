/* A kernel declared with WASMGPU_DEFINE_KERNEL: its parameters' names and
 * types are recorded in the module's "wasmgpu.kernels" section
 * (tests/e2e/kernel_params_test.cpp reads them back), and it still runs. */
#include <stdint.h>
#include <wasmgpu.h>

#include "kernel_params.h"

WASMGPU_DEFINE_KERNEL(integrate, WASMGPU_VALUE(int, index), WASMGPU_CONST_PTR(Body, bodies), WASMGPU_VALUE(double, dt),
                      WASMGPU_VALUE(int64_t, step), WASMGPU_VALUE(float, damping), WASMGPU_PTR(BodyState, states),
                      WASMGPU_VALUE(unsigned, count)) {
  if ((unsigned)index >= count) return;
  const Body *b = &bodies[index];
  BodyState *s = &states[index];
  s->position = b->position + b->velocity * dt;
  s->energy = 0.5f * b->mass * (float)(b->velocity * b->velocity) * damping;
  s->step = step + index;
}
