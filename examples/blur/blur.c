/* One pass of a separable Gaussian blur over an rgba32f image: each texel
 * becomes the weighted sum of the 2 * radius + 1 texels along (dx, dy)
 * around it, edges clamped. Two passes, (1, 0) then (0, 1), blur in 2D.
 *
 * The kernel reads texels with image loads (no filtering), so
 * blur_pass_reference below, compiled natively with the same float
 * operations in the same order, gives the same bits. */
#include <wasmgpu.h>

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

#if defined(__wasm__)
WASMGPU_DEFINE_KERNEL(blur_pass, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(src), WASMGPU_IMAGE(dst),
                      WASMGPU_CONST_PTR(float, weights), WASMGPU_VALUE(int, radius), WASMGPU_VALUE(int, dx),
                      WASMGPU_VALUE(int, dy)) {
  int w = wasmgpu_image_size(src, 0), h = wasmgpu_image_size(src, 1);
  int x = i % w, y = i / w;
  if (y >= h) return;
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = -radius; k <= radius; ++k) {
    float texel[4];
    wasmgpu_image_load_2d(texel, src, clamp_int(x + k * dx, 0, w - 1), clamp_int(y + k * dy, 0, h - 1));
    float weight = weights[k + radius];
    for (int c = 0; c < 4; ++c) sum[c] += weight * texel[c];
  }
  wasmgpu_image_store_2d(dst, x, y, sum[0], sum[1], sum[2], sum[3]);
}
#else
/* The same pass on the CPU over tightly packed rgba floats. */
void blur_pass_reference(const float *src, float *dst, int w, int h, const float *weights, int radius, int dx, int dy) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int k = -radius; k <= radius; ++k) {
        const float *texel = src + 4 * (clamp_int(y + k * dy, 0, h - 1) * w + clamp_int(x + k * dx, 0, w - 1));
        float weight = weights[k + radius];
        for (int c = 0; c < 4; ++c) sum[c] += weight * texel[c];
      }
      for (int c = 0; c < 4; ++c) dst[4 * (y * w + x) + c] = sum[c];
    }
}
#endif
