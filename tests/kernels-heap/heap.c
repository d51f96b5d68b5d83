/* C kernels that allocate from the device heap (include/wasmgpu_heap.c in
 * place of wasi-libc's dlmalloc): tests/e2e/heap_test.cpp checks them
 * against CPU references. Loops keep unrolling off: every heap access is a
 * run-time address, and lavapipe compiles each one's translation slowly. */
#include <stdlib.h>
#include <string.h>
#include <wasmgpu.h>

/* Invocation i's block: 4 to 388 bytes (the classes of 16 to 512 bytes), and
 * with `big` every 16th one 4 to 6.8 KiB (two whole pages). */
static unsigned words_of(unsigned i, unsigned big) {
  if (big && i % 16 == 0) return 1024 + i % 700;
  return 1 + i * 7 % 97;
}
static unsigned value_of(unsigned i, unsigned j) { return i * 2654435761u + j * 40503u; }

/* Allocates invocation i's block, fills it, and records its address and
 * the sum of what it reads back; the block stays allocated. */
WASMGPU_DEFINE_KERNEL(alloc_write, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, addrs), WASMGPU_PTR(unsigned, sums),
                      WASMGPU_VALUE(unsigned, n), WASMGPU_VALUE(unsigned, big)) {
  if ((unsigned)i >= n) return;
  const unsigned words = words_of((unsigned)i, big);
  unsigned *block = malloc(4 * words);
  addrs[i] = (unsigned)block;
  unsigned sum = 0;
  if (block) {
#pragma clang loop unroll(disable) vectorize(disable)
    for (unsigned j = 0; j < words; ++j) block[j] = value_of((unsigned)i, j);
#pragma clang loop unroll(disable) vectorize(disable)
    for (unsigned j = 0; j < words; ++j) sum += block[j] * (j + 1);
  }
  sums[i] = sum;
}

/* A later launch: the sum of invocation i's block as it is now (another
 * invocation's block overlapping it would have changed it), then frees it. */
WASMGPU_DEFINE_KERNEL(check_free, WASMGPU_VALUE(int, i), WASMGPU_CONST_PTR(unsigned, addrs),
                      WASMGPU_PTR(unsigned, sums), WASMGPU_VALUE(unsigned, n), WASMGPU_VALUE(unsigned, big)) {
  if ((unsigned)i >= n) return;
  unsigned *block = (unsigned *)addrs[i];
  const unsigned words = words_of((unsigned)i, big);
  unsigned sum = 0;
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned j = 0; j < words; ++j) sum += block[j] * (j + 1);
  sums[i] = sum;
  free(block);
}

/* Allocates `bytes`-byte blocks until malloc gives NULL and counts them;
 * then asks for more than the heap holds, and for a calloc whose size
 * overflows. out[i] = count | (both NULL) << 31. */
WASMGPU_DEFINE_KERNEL(exhaust, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out), WASMGPU_VALUE(unsigned, n),
                      WASMGPU_VALUE(unsigned, bytes)) {
  if ((unsigned)i >= n) return;
  unsigned count = 0;
#pragma clang loop unroll(disable) vectorize(disable)
  while (count < 100000) {
    unsigned *p = malloc(bytes);
    if (!p) break;
    *p = (unsigned)i;
    ++count;
  }
  const int refused = malloc(1u << 30) == NULL && calloc(1u << 20, 1u << 13) == NULL;
  out[i] = count | (unsigned)refused << 31;
}

/* `rounds` rounds of malloc, realloc to larger classes (the contents kept),
 * realloc that shrinks (in place), calloc and free; out[i] counts the rounds
 * whose checks held. More rounds than the heap could hold without reuse. */
WASMGPU_DEFINE_KERNEL(churn, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out), WASMGPU_VALUE(unsigned, n),
                      WASMGPU_VALUE(unsigned, rounds)) {
  if ((unsigned)i >= n) return;
  unsigned good = 0;
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned r = 0; r < rounds; ++r) {
    const unsigned key = value_of((unsigned)i, r);
    unsigned *p = malloc(24);
    if (!p) break;
    p[0] = key, p[5] = ~key;
    unsigned *q = realloc(p, 100); /* 32 -> 128 bytes: moves */
    if (!q) break;
    q[24] = key + 1;
    unsigned *s = realloc(q, 600); /* -> 1 KiB: moves */
    if (!s) break;
    const int kept = s[0] == key && s[5] == ~key && s[24] == key + 1;
    unsigned *t = realloc(s, 40); /* shrinks: stays */
    unsigned *z = calloc(6, 4);
    if (!z) break;
    const int zeroed = z[0] == 0 && z[5] == 0;
    good += kept && t == s && zeroed;
    free(z);
    free(t);
  }
  out[i] = good;
}
