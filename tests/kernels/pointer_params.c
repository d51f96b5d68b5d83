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

WASMGPU_KERNEL(copy8_at) void copy8_at(int i, const uint8_t *src, uint8_t *dst, int shift) { dst[i] = src[i + shift]; }

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

/* More arguments than the push constants hold (abi/launch_abi.h,
 * push_layout): the values of 8-byte scalars, and the ParamRegions of most
 * pointers, come from the LaunchBlock instead. */
WASMGPU_KERNEL(gather_many)
void gather_many(int i, const int32_t *p0, const int32_t *p1, const int32_t *p2, const int32_t *p3, const int32_t *p4,
                 const int32_t *p5, const int32_t *p6, double scale, long long offset, float bias, int64_t *out) {
  long long sum = p0[i] + 2LL * p1[i] + 3LL * p2[i] + 5LL * p3[i] + 7LL * p4[i] + 11LL * p5[i] + 13LL * p6[i];
  out[i] = (int64_t)((double)sum * scale + (double)bias) + offset;
}

/* Four neighbouring words per invocation: at -O2 the loads share one range
 * check and, when p is proven 16-aligned (sum4), one vector load
 * (docs/compiler.md, "Load groups"). sum4_at's p may start anywhere, so that
 * a test can make the group straddle the buffer's ends or land in another
 * buffer. */
WASMGPU_KERNEL(sum4) void sum4(int i, const uint32_t *src, uint32_t *dst) {
  const uint32_t *p = src + 4 * i;
  dst[i] = p[0] + 3u * p[1] + 5u * p[2] + 7u * p[3];
}

WASMGPU_KERNEL(sum4_at) void sum4_at(int i, const uint32_t *src, uint32_t *dst, int shift) {
  const uint32_t *p = src + 4 * i + shift;
  dst[i] = p[3] + 3u * p[1] + 5u * p[0] + 7u * p[2];
}

/* p = src + stride * i: 16-aligned for every invocation when stride is a
 * multiple of 4, for some when it is 1 or 2 (one subgroup then mixes aligned
 * and unaligned groups), which only the run time knows. */
WASMGPU_KERNEL(sum4_strided) void sum4_strided(int i, const uint32_t *src, uint32_t *dst, int stride) {
  const uint32_t *p = src + stride * i;
  dst[i] = p[2] + 3u * p[0] + 5u * p[3] + 7u * p[1];
}

/* Four neighbouring words written per invocation: at -O2 the stores share
 * one range check and, when q is proven 16-aligned, are one vector store. */
WASMGPU_KERNEL(spread4_at) void spread4_at(int i, const uint32_t *src, uint32_t *dst, int shift) {
  uint32_t v = src[i];
  uint32_t *q = dst + 4 * i + shift;
  q[0] = v;
  q[1] = v * 3u;
  q[2] = v ^ 0x5a5a5a5au;
  q[3] = v + 1u;
}

/* Loads from two arguments and arithmetic on both values before the store:
 * each load checked against its own argument's buffer, traps in code order. */
WASMGPU_KERNEL(mix_at) void mix_at(int i, const uint32_t *a, const uint32_t *b, uint32_t *out, int shift) {
  uint32_t x = a[i + shift], y = b[i];
  out[i] = (x * 3u + (y >> 1)) ^ (x & y);
}
