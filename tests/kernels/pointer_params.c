/* Accesses through pointer parameters, which take the compiler's
 * pointer-parameter fast path at -O2 (docs/compiler.md): copies at an offset
 * from the pointer, so that a test can point them into the middle of a
 * buffer, past its end, below its start or into another buffer. */
#include <stdint.h>
#include <wasmgpu.h>

WASMGPU_KERNEL(copy32_at) void copy32_at(int i, const int32_t *src, int32_t *dst, int shift) {
  dst[i] = src[i + shift];
}

WASMGPU_KERNEL(copy64_at) void copy64_at(int i, const int64_t *src, int64_t *dst, int shift) {
  dst[i] = src[i + shift];
}

WASMGPU_KERNEL(copy8_at) void copy8_at(int i, const uint8_t *src, uint8_t *dst, int shift) {
  dst[i] = src[i + shift];
}

/* Two floats per invocation through a struct, and a 16-bit field. */
struct pair {
  float a, b;
  int16_t tag;
  int16_t pad;
};

WASMGPU_KERNEL(swap_pairs) void swap_pairs(int i, const struct pair *in, struct pair *out) {
  struct pair p = in[i];
  out[i].a = p.b;
  out[i].b = p.a;
  out[i].tag = (int16_t)(p.tag + 1);
  out[i].pad = 0;
}
