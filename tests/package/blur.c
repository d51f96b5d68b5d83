#include <wasmgpu.h>

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* One horizontal (dx=1, dy=0) or vertical (dx=0, dy=1) pass of a 5-tap
 * Gaussian blur over an rgba32f image, edges clamped. */
WASMGPU_DEFINE_KERNEL(blur, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(src), WASMGPU_IMAGE(dst), WASMGPU_VALUE(int, dx),
                      WASMGPU_VALUE(int, dy)) {
  static const float weights[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
  int w = wasmgpu_image_size(src, 0), h = wasmgpu_image_size(src, 1);
  int x = i % w, y = i / w;
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = -2; k <= 2; ++k) {
    float texel[4];
    wasmgpu_image_load_2d(texel, src, clamp_int(x + k * dx, 0, w - 1), clamp_int(y + k * dy, 0, h - 1));
    for (int c = 0; c < 4; ++c) sum[c] += weights[k + 2] * texel[c];
  }
  wasmgpu_image_store_2d(dst, x, y, sum[0], sum[1], sum[2], sum[3]);
}
