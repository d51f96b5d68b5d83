/* Mandelbrot escape counts: rows spread over the threads dynamically (rows
 * inside the set cost more), one pixel at a time. */
#include "native_twins.h"

void native_mandelbrot(unsigned* counts, unsigned width, unsigned height, unsigned max_iterations, float x0, float y0,
                       float step) {
#pragma omp parallel for schedule(dynamic, 1)
  for (unsigned py = 0; py < height; ++py) {
    float cy = y0 + (float)py * step;
    for (unsigned px = 0; px < width; ++px) {
      float cx = x0 + (float)px * step;
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
      counts[(size_t)py * width + px] = k;
    }
  }
}
