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

/* `rounds` rounds of malloc, a check of the block's words, and free, in
 * sizes of 24, 100 and 600 bytes by turns (three classes); out[i] counts the
 * rounds whose checks held, more than the heap could hold without reuse. */
WASMGPU_DEFINE_KERNEL(churn, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out), WASMGPU_VALUE(unsigned, n),
                      WASMGPU_VALUE(unsigned, rounds)) {
  if ((unsigned)i >= n) return;
  unsigned good = 0;
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned r = 0; r < rounds; ++r) {
    const unsigned key = value_of((unsigned)i, r), words = r % 3 == 0 ? 6 : r % 3 == 1 ? 25 : 150;
    unsigned *p = malloc(4 * words);
    if (!p) break;
    p[0] = key, p[words - 1] = ~key;
    good += p[0] == key && p[words - 1] == ~key;
    free(p);
  }
  out[i] = good;
}

/* One block through realloc: 24 bytes (realloc of NULL is malloc), 100 and
 * 600 (larger classes: it moves, the contents kept), 40 (it shrinks in
 * place), then free. out[i] = 1 when every check held. One realloc call in
 * a loop: lavapipe compiles every inlined copy of the allocator, and an
 * earlier kernel with three realloc calls, a calloc and two frees inside a
 * loop of rounds took it 259 s. */
WASMGPU_DEFINE_KERNEL(realloc_chain, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out), WASMGPU_VALUE(unsigned, n)) {
  if ((unsigned)i >= n) return;
  const unsigned key = value_of((unsigned)i, 7);
  unsigned *p = 0, ok = 1;
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned k = 0; k < 4; ++k) {
    unsigned *q = realloc(p, k == 0 ? 24 : k == 1 ? 100 : k == 2 ? 600 : 40);
    if (!q) {
      ok = 0;
      break;
    }
    if (k == 0) q[0] = key, q[5] = ~key;
    if (k == 1) q[24] = key + 1;
    if (k == 2) ok &= q[0] == key && q[5] == ~key && q[24] == key + 1;
    if (k == 3) ok &= q == p;
    p = q;
  }
  free(p);
  out[i] = ok;
}

/* calloc zeroes a block that malloc handed out and free gave back: out[i]
 * is 1 when all 12 words were 0. */
WASMGPU_DEFINE_KERNEL(calloc_zeroes, WASMGPU_VALUE(int, i), WASMGPU_PTR(unsigned, out), WASMGPU_VALUE(unsigned, n)) {
  if ((unsigned)i >= n) return;
  unsigned *p = malloc(48);
  if (p) memset(p, 0xff, 48);
  free(p);
  unsigned *z = calloc(12, 4), zero = z != 0;
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned j = 0; zero && j < 12; ++j) zero = z[j] == 0;
  out[i] = zero;
  free(z);
}
