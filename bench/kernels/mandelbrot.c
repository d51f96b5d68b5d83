/* Mandelbrot escape counts, f32, one pixel per invocation on a 2-D grid of
 * 16 x 16 workgroups. The host passes the pixel size, so nothing divides. */
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(mandelbrot, WASMGPU_VALUE(int, index), WASMGPU_PTR(unsigned, counts),
                      WASMGPU_VALUE(unsigned, width), WASMGPU_VALUE(unsigned, max_iterations), WASMGPU_VALUE(float, x0),
                      WASMGPU_VALUE(float, y0), WASMGPU_VALUE(float, step)) {
  (void)index;
  unsigned px = wasmgpu_global_id(0), py = wasmgpu_global_id(1);
  float cx = x0 + (float)px * step, cy = y0 + (float)py * step;
  float x = 0.0f, y = 0.0f;
  unsigned k = 0;
  while (k < max_iterations) {
    float xx = x * x, yy = y * y;
    if (xx + yy > 4.0f) break;
    float xy = x * y;
    x = xx - yy + cx;
    y = xy + xy + cy;
    ++k;
  }
  counts[py * width + px] = k;
}
