/* One Jacobi step at (x, y) of a w x h grid: interior points become the mean
 * of their four neighbours, boundary points keep their value. Shared by the
 * kernel and the CPU reference. */
#ifndef JACOBI_H
#define JACOBI_H
static inline float jacobi_point(const float *in, unsigned x, unsigned y, unsigned w, unsigned h) {
  if (x == 0 || y == 0 || x + 1 == w || y + 1 == h) return in[y * w + x];
  float around = in[(y - 1) * w + x] + in[(y + 1) * w + x] + in[y * w + x - 1] + in[y * w + x + 1];
  return 0.25f * around;
}
#endif
