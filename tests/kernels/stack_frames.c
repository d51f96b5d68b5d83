/* Shadow-stack frame shapes that clang emits, most of them at -O0: structs
 * passed and returned by value, large local arrays, locals whose address is
 * passed down several calls, alloca and VLAs sized at run time, and a .bss
 * array just below the stack. The stack analysis (src/spirv/stack_analysis.cpp)
 * must never give a frame less than it uses: each kernel's results are
 * compared with the same C run natively, and a shadow stack overflow fails the
 * launch. */
#include <stdint.h>
#include <wasmgpu.h>

/* Returned through an sret pointer into the caller's frame; passed by value
 * as a copy in the caller's frame. */
struct wide {
  uint32_t w[24];
  uint64_t tag;
};

__attribute__((noinline)) static struct wide make_wide(uint32_t seed) {
  struct wide r;
  for (int k = 0; k < 24; ++k) r.w[k] = seed * 2654435761u + (uint32_t)k * 40503u;
  r.tag = (uint64_t)seed << 33 | seed;
  return r;
}

__attribute__((noinline)) static struct wide mix_wide(struct wide a, struct wide b) {
  struct wide r;
  for (int k = 0; k < 24; ++k) r.w[k] = a.w[k] ^ (b.w[23 - k] + (uint32_t)a.tag);
  r.tag = a.tag + b.tag;
  return r;
}

__attribute__((noinline)) static uint32_t fold_wide(struct wide v) {
  uint32_t h = (uint32_t)(v.tag >> 7);
  for (int k = 0; k < 24; ++k) h = h * 31 + v.w[k];
  return h;
}

/* A 2 KiB frame below a 1 KiB frame. */
__attribute__((noinline)) static uint32_t big_inner(uint32_t seed) {
  uint32_t a[512];
  for (int k = 0; k < 512; ++k) a[k] = seed + (uint32_t)k * 7u;
  for (int k = 1; k < 512; ++k) a[k] += a[(k * 37) % k] ^ a[k - 1];
  return a[511] + a[seed % 512];
}

__attribute__((noinline)) static uint32_t big_outer(uint32_t seed) {
  uint32_t b[256];
  for (int k = 0; k < 256; ++k) b[k] = seed ^ (uint32_t)k;
  uint32_t inner = big_inner(b[seed % 256]);
  for (int k = 0; k < 256; ++k) inner += b[k] * (uint32_t)(k | 1);
  return inner;
}

/* Locals whose address goes three calls down, each level adding its own. */
__attribute__((noinline)) static void bump3(uint32_t *p, uint32_t *q) {
  *p += 3;
  *q = *q * 5 + *p;
}

__attribute__((noinline)) static void bump2(uint32_t *p) {
  uint32_t mine = *p ^ 0x5a5a;
  bump3(p, &mine);
  *p += mine;
}

__attribute__((noinline)) static void bump1(uint32_t *p) {
  uint32_t pair[2] = {*p, *p + 1};
  bump2(&pair[0]);
  bump2(&pair[1]);
  *p = pair[0] * 7 + pair[1];
}

/* Run-time sized frames: the stack pointer moves by an amount known only
 * when the kernel runs, so the analysis cannot bound them. */
__attribute__((noinline)) static uint32_t with_alloca(uint32_t n) {
  uint32_t *a = __builtin_alloca(n * sizeof(uint32_t));
  for (uint32_t k = 0; k < n; ++k) a[k] = k * k + n;
  uint32_t s = 0;
  for (uint32_t k = 0; k < n; ++k) s = s * 3 + a[n - 1 - k];
  return s;
}

__attribute__((noinline)) static uint32_t with_vla(uint32_t n) {
  uint64_t v[n];
  for (uint32_t k = 0; k < n; ++k) v[k] = (uint64_t)k << 20 | n;
  uint64_t s = 0;
  for (uint32_t k = 0; k < n; ++k) s += v[k] * (k + 1);
  return (uint32_t)(s ^ (s >> 32));
}

/* An alloca per iteration in a leaf function: clang keeps the moving stack
 * pointer in a local and never stores it. */
__attribute__((noinline)) static uint32_t alloca_per_iteration(uint32_t n, uint32_t rounds) {
  uint32_t s = 0;
  for (uint32_t j = 0; j < rounds; ++j) {
    volatile uint32_t *a = __builtin_alloca(n * sizeof(uint32_t));
    for (uint32_t k = 0; k < n; ++k) a[k] = k * j + s;
    s += a[n - 1] ^ a[j % n];
  }
  return s;
}

/* .bss: zero-initialised data placed below the stack by wasm-ld. One slot
 * per invocation, so invocations do not race. */
static uint32_t below_stack[256];

/* Frames of constant size only: the analysis bounds them. */
WASMGPU_KERNEL(frames) void frames(int i, const uint32_t *in, uint32_t *out) {
  const uint32_t seed = in[i];
  uint32_t *o = out + 6 * i;

  struct wide a = make_wide(seed), b = make_wide(seed + 1);
  o[0] = fold_wide(mix_wide(a, b));
  o[1] = big_outer(seed);

  uint32_t x = seed;
  bump1(&x);
  o[2] = x;

  below_stack[i % 256] = seed * 3;
  uint32_t local[4] = {seed, seed + 1, seed + 2, seed + 3};
  o[3] = below_stack[i % 256] + local[seed % 4];
  o[4] = big_inner(seed ^ 1) + local[(seed >> 3) % 4];
  o[5] = fold_wide(a) ^ fold_wide(b);
}

/* alloca and a VLA: frames whose size only the run knows. */
WASMGPU_KERNEL(sized_at_run_time) void sized_at_run_time(int i, const uint32_t *in, uint32_t *out) {
  const uint32_t seed = in[i];
  uint32_t *o = out + 4 * i;
  /* Up to 8 KiB each: more than the bounded frames above would get. */
  o[0] = with_alloca(1 + seed % 2048);
  o[1] = with_vla(1 + (seed >> 8) % 1024);
  o[2] = with_alloca(1 + seed % 7) + big_inner(seed);
  o[3] = alloca_per_iteration(1 + seed % 512, 1 + (seed >> 12) % 8);
}
