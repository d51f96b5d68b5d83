/* The launch-overhead kernel: one workgroup whose first invocation adds 1 to
 * a counter, so that each launch depends on the one before it. */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(bump, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, counter)) {
  if (i == 0) counter[0] += 1u;
}
