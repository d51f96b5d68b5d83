/* Image kernels of the api tests (api/image_test.cpp). */
#include <wasmgpu.h>

/* dst = src * scale + offset per channel (rgba32f or any storage image). */
WASMGPU_DEFINE_KERNEL(affine, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(src), WASMGPU_IMAGE(dst),
                      WASMGPU_VALUE(float, scale), WASMGPU_VALUE(float, offset)) {
  int w = wasmgpu_image_size(src, 0), h = wasmgpu_image_size(src, 1);
  int x = i % w, y = i / w;
  if (y >= h) return;
  float t[4];
  wasmgpu_image_load_2d(t, src, x, y);
  wasmgpu_image_store_2d(dst, x, y, t[0] * scale + offset, t[1] * scale + offset, t[2] * scale + offset,
                         t[3] * scale + offset);
}

/* out[i] = the texel at the centre of (x, y), sampled. */
WASMGPU_DEFINE_KERNEL(sample_centres, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(image), WASMGPU_SAMPLER(s),
                      WASMGPU_PTR(float, out)) {
  int w = wasmgpu_image_size(image, 0), h = wasmgpu_image_size(image, 1);
  int x = i % w, y = i / w;
  if (y >= h) return;
  wasmgpu_image_sample_2d(out + 4 * i, image, s, (x + 0.5f) / w, (y + 0.5f) / h, 0.0f);
}

/* Reads texel (x, 0): traps past the edge. */
WASMGPU_DEFINE_KERNEL(load_at, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(image), WASMGPU_VALUE(int, x),
                      WASMGPU_PTR(float, out)) {
  wasmgpu_image_load_2d(out, image, x, 0);
}
