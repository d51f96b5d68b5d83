/* The Mandelbrot set, one pixel per invocation, written as 8-bit RGBA. */
#include <wasmgpu.h>

static unsigned colour(int iterations, int max_iterations) {
  if (iterations >= max_iterations) return 0xFF000000u; /* inside: opaque black */
  /* A smooth-looking palette from the escape count, computed in integers. */
  unsigned t = (unsigned)iterations * 255u / (unsigned)max_iterations;
  unsigned r = (9u * (255u - t) * t * t * t) / (255u * 255u * 255u);
  unsigned g = (15u * (255u - t) * (255u - t) * t * t) / (255u * 255u * 255u);
  unsigned b = (8u * (255u - t) * (255u - t) * (255u - t) * t) / (255u * 255u * 255u);
  return 0xFF000000u | (b << 16) | (g << 8) | r;
}

WASMGPU_KERNEL(mandelbrot)
void mandelbrot(int i, unsigned *rgba, int width, int height, int max_iterations, float scale) {
  int px = i % width;
  int py = i / width;
  if (py >= height) return;
  /* The view starts at x = -2.2, y centred; `scale` is the size of a pixel
   * (3.2 / width for the whole set). The host passes it rather than the kernel
   * dividing, so that results are bit-exact on every Vulkan device (Vulkan
   * allows float division an error of 2.5 ulp). */
  float cx = -2.2f + ((float)px + 0.5f) * scale;
  float cy = ((float)py - 0.5f * (float)height + 0.5f) * scale;
  float x = 0.0f, y = 0.0f;
  int n = 0;
  while (n < max_iterations) {
    float xx = x * x, yy = y * y;
    if (xx + yy > 4.0f) break;
    float xy = x * y;
    x = xx - yy + cx;
    y = xy + xy + cy;
    ++n;
  }
  rgba[i] = colour(n, max_iterations);
}
