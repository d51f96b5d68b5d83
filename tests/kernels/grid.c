/* A 2-D kernel for grid launches: writes (y << 16) | x at each coordinate of
 * a width x height image, checking its own bounds (a grid runs whole
 * workgroups). */
#include <wasmgpu.h>

WASMGPU_KERNEL(coords) void coords(int index, unsigned width, unsigned height, unsigned *out) {
  (void)index;
  unsigned x = wasmgpu_global_id(0), y = wasmgpu_global_id(1);
  if (x < width && y < height) out[y * width + x] = (y << 16) | x;
}
