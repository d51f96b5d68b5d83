// libm and memset/memcpy from wasi-libc, linked into the kernel as wasm code.
// The kernel writes, for input k, the bits of each function's result; the
// libm_digest_<word> exports fold one result word over all inputs, so the same
// module run by a CPU wasm engine (wabt's wasm-interp) gives the reference.
#include <math.h>
#include <string.h>
#include <wasmgpu.h>

#define LIBM_INPUTS 1024
#define LIBM_WORDS 12

typedef struct {
  unsigned words[LIBM_WORDS];
} LibmResults;

static unsigned mix(unsigned k) {
  k ^= k >> 16;
  k *= 0x7feb352du;
  k ^= k >> 15;
  k *= 0x846ca68bu;
  k ^= k >> 16;
  return k;
}

// A value in [-range, range], different for each k and salt.
static float input_f32(unsigned k, unsigned salt, float range) {
  return (float)((int)(mix(k * 4u + salt) % 2000001u) - 1000000) * (range / 1e6f);
}

static void compute(unsigned k, LibmResults *r) {
  float a = input_f32(k, 0, 20.0f);                     // exp: no overflow
  float b = fabsf(input_f32(k, 1, 1000.0f)) + 1e-3f;   // log, pow: positive
  float c = input_f32(k, 2, k % 8 == 0 ? 1e6f : 10.0f);  // sin, cos: small and large
  double d = (double)input_f32(k, 3, 30.0f) * (1.0 + 1e-9 * k);
  float f[5] = {expf(a), logf(b), sinf(c), cosf(c), powf(b, a * 0.25f)};
  double g[3] = {exp(d), log(fabs(d) + 1e-3), sin(d * 100.0)};
  memset(r, 0xA5, sizeof *r);  // words[11] keeps the pattern
  memcpy(&r->words[0], f, sizeof f);
  memcpy(&r->words[5], g, sizeof g);
}

WASMGPU_KERNEL(libm) void libm(int i, unsigned *out) {
  LibmResults r;
  compute((unsigned)i, &r);
  unsigned char *dst = (unsigned char *)(out + (unsigned)i * LIBM_WORDS);
  size_t half = (size_t)(i % 5) * 4;  // a variable split: memcpy/memset of run-time sizes
  memset(dst, 0, sizeof r);
  memcpy(dst, &r, half);
  memcpy(dst + half, (unsigned char *)&r + half, sizeof r - half);
}

// FNV-1a over one result word of every input.
static unsigned long long digest(unsigned word) {
  unsigned long long h = 0xcbf29ce484222325ull;
  for (unsigned k = 0; k < LIBM_INPUTS; ++k) {
    LibmResults r;
    compute(k, &r);
    h = (h ^ r.words[word]) * 0x100000001b3ull;
  }
  return h;
}

#define LIBM_DIGEST(w) \
  WASMGPU_KERNEL(libm_digest_##w) unsigned long long libm_digest_##w(void) { return digest(w); }
LIBM_DIGEST(0)
LIBM_DIGEST(1)
LIBM_DIGEST(2)
LIBM_DIGEST(3)
LIBM_DIGEST(4)
LIBM_DIGEST(5)
LIBM_DIGEST(6)
LIBM_DIGEST(7)
LIBM_DIGEST(8)
LIBM_DIGEST(9)
LIBM_DIGEST(10)
LIBM_DIGEST(11)
