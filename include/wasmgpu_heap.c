/* The kernel side of malloc, free, calloc, realloc, aligned_alloc,
 * posix_memalign and malloc_usable_size: a device heap shared by every
 * invocation of every launch of the module (docs/memory-model.md, "The device
 * heap"; docs/kernel-guide.md, "Heap allocation").
 *
 * `wasmgpu cc` and the CMake kernel rule compile this file and put it into
 * the kernels' libc in place of wasi-libc's dlmalloc.o, so that only a kernel
 * that allocates links it. dlmalloc keeps its state in memory and grows the
 * heap with sbrk (memory.grow), unsynchronised: thousands of invocations
 * calling it at once would corrupt it. This allocator needs no lock and only
 * 32-bit atomics on words (wasmgpu.h), so it runs on every device that runs
 * atomics.
 *
 * The heap is a device buffer the runtime allocates when it loads a module
 * that holds this slot, found by its magic words "WGPUHEAP"; it writes the
 * heap's wasm address and its page count into the slot and fills the heap
 * with zeros (every page free). The same layout is rust/wasmgpu.rs's and
 * assemblyscript/heap_runtime.ts's; the host's is src/api/heap.h.
 *
 *   heap + 0:      16 words: [0..7] the page each size class looks at
 *                  first (a hint), [8..15] each class's ticket counter
 *   heap + 64:     the page table, one word per page: 0 free, c + 1 a page
 *                  of blocks of class c, kLargeHead | n the first of n pages
 *                  of one large block, kLargeTail the others
 *   then:          8 bitmap words per page: bit b set = block b in use
 *   heap + first:  the pages, 4 KiB each, `first` the metadata's end
 *                  rounded up to 4 KiB (the heap is 64 KiB aligned)
 *
 * Blocks of class c are 16 << c bytes (16 B to 2 KiB), aligned to their
 * size; a request above 2 KiB takes whole pages, aligned to 4 KiB. A page
 * keeps the class it was first given. Every claim is an atomic on one word
 * (a bitmap bit by atomic OR, a free page by compare-exchange), so two
 * invocations never get overlapping blocks; a full heap returns NULL. */
#include <errno.h>
#include <stddef.h>

#include "wasmgpu.h"

/* Until the runtime writes them, the heap and page count are all ones, not
 * zeros: binaryen's wasm-opt drops a data segment's trailing zeros, which
 * would leave the runtime no bytes to write. */
struct wasmgpu_heap_slot {
  unsigned magic[2];
  volatile unsigned heap;  /* the heap's wasm address */
  volatile unsigned pages; /* 4 KiB pages after the metadata (0 or ~0u: no heap) */
};
__attribute__((used)) struct wasmgpu_heap_slot wasmgpu_heap_slot_ = {{0x55504757u, 0x50414548u}, ~0u, ~0u};

enum {
  kPageShift = 12,
  kPageBytes = 1 << kPageShift,
  kClasses = 8,
  kSmallMax = 16 << (kClasses - 1),
  kBitmapWords = kPageBytes / 16 / 32,
  kHeaderWords = 16,
};
#define kLargeHead 0x80000000u
#define kLargeTail 0x40000000u

typedef volatile int word;

struct heap {
  word *hints, *tickets, *table, *bitmaps;
  unsigned first, pages;
};

static int open_heap(struct heap *h) {
  const unsigned base = wasmgpu_heap_slot_.heap;
  h->pages = wasmgpu_heap_slot_.pages;
  if (h->pages == 0 || h->pages == ~0u) return 0;
  h->hints = (word *)base;
  h->tickets = h->hints + kClasses;
  h->table = h->hints + kHeaderWords;
  h->bitmaps = h->table + h->pages;
  h->first = base + ((kHeaderWords * 4 + h->pages * 4 * (1 + kBitmapWords) + kPageBytes - 1) & ~(kPageBytes - 1));
  return 1;
}

static unsigned class_of(size_t n) {
  unsigned c = 0;
  while ((16u << c) < n) ++c;
  return c;
}

/* A block of class c: pages from the class's hint on, the first free bit of
 * the page's bitmap from a word and bit that the class's ticket spreads, so
 * that invocations allocating at once start at different bits. The first
 * pass looks at the class's own pages only, the second claims a free page
 * too, so a class takes a new page only when its own are full. */
static void *alloc_small(const struct heap *h, unsigned c) {
  const unsigned blocks = kPageBytes >> (4 + c);
  const unsigned words = blocks < 32 ? 1 : blocks / 32;
  const unsigned valid = blocks < 32 ? (1u << blocks) - 1 : ~0u;
  const unsigned ticket = (unsigned)wasmgpu_atomic_add(&h->tickets[c], 1);
  unsigned start = (unsigned)h->hints[c];
  if (start >= h->pages) start = 0;
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned i = 0; i < 2 * h->pages; ++i) {
    unsigned p = start + i % h->pages;
    if (p >= h->pages) p -= h->pages;
    unsigned kind = (unsigned)h->table[p];
    if (kind == 0 && i >= h->pages) { /* a free page: this class's, unless another claim came first */
      kind = (unsigned)wasmgpu_atomic_compare_exchange(&h->table[p], 0, (int)c + 1);
      if (kind == 0) kind = c + 1;
    }
    if (kind != c + 1) continue;
#pragma clang loop unroll(disable) vectorize(disable)
    for (unsigned k = 0; k < words; ++k) {
      const unsigned w = (ticket + k) % words;
      word *bits = &h->bitmaps[p * kBitmapWords + w];
      unsigned used = (unsigned)*bits;
#pragma clang loop unroll(disable) vectorize(disable)
      while (~used & valid) {
        const unsigned free_bits = ~used & valid, later = free_bits & (~0u << ((ticket / words) & 31));
        const unsigned bit = (unsigned)__builtin_ctz(later ? later : free_bits);
        used = (unsigned)wasmgpu_atomic_or(bits, (int)(1u << bit));
        if (!(used & (1u << bit))) {
          if (p != start) h->hints[c] = (int)p;
          return (void *)(h->first + (p << kPageShift) + ((w * 32 + bit) << (4 + c)));
        }
      }
    }
  }
  return 0;
}

/* n consecutive free pages, claimed one by one from the heap's end down
 * (away from the small classes, which start at the front); a page another
 * invocation claimed meanwhile gives back those claimed so far. */
static void *alloc_large(const struct heap *h, size_t bytes) {
  const unsigned n = (unsigned)((bytes + kPageBytes - 1) >> kPageShift);
  if (n > h->pages) return 0;
  unsigned end = h->pages; /* try [end - n, end) */
#pragma clang loop unroll(disable) vectorize(disable)
  while (end >= n) {
    unsigned claimed = 0;
#pragma clang loop unroll(disable) vectorize(disable)
    while (claimed < n) {
      const unsigned p = end - 1 - claimed;
      const unsigned mark = claimed == n - 1 ? kLargeHead | n : kLargeTail;
      if (wasmgpu_atomic_compare_exchange(&h->table[p], 0, (int)mark) != 0) break;
      ++claimed;
    }
    if (claimed == n) return (void *)(h->first + ((end - n) << kPageShift));
#pragma clang loop unroll(disable) vectorize(disable)
    for (unsigned k = 0; k < claimed; ++k) wasmgpu_atomic_exchange(&h->table[end - 1 - k], 0);
    end -= claimed + 1; /* past the page that was taken */
  }
  return 0;
}

void *malloc(size_t n) {
  struct heap h;
  if (!open_heap(&h)) return 0;
  return n <= kSmallMax ? alloc_small(&h, class_of(n)) : alloc_large(&h, n);
}

/* The block's usable size, or 0 when `p` is not a block of the heap. */
static size_t block_size(const struct heap *h, const void *p, unsigned *page) {
  const unsigned offset = (unsigned)p - h->first;
  if ((unsigned)p < h->first || (offset >> kPageShift) >= h->pages) return 0;
  *page = offset >> kPageShift;
  const unsigned kind = (unsigned)h->table[*page];
  if (kind >= 1 && kind <= kClasses) return (size_t)16 << (kind - 1);
  if (kind & kLargeHead) return (size_t)(kind & ~kLargeHead) << kPageShift;
  return 0;
}

void free(void *p) {
  struct heap h;
  unsigned page;
  if (!p || !open_heap(&h)) return;
  const size_t size = block_size(&h, p, &page);
  if (size == 0) return; /* not a heap block: nothing to free */
  if (size <= kSmallMax) {
    const unsigned c = class_of(size), block = (((unsigned)p - h.first) & (kPageBytes - 1)) >> (4 + c);
    wasmgpu_atomic_and(&h.bitmaps[page * kBitmapWords + block / 32], (int)~(1u << (block & 31)));
    h.hints[c] = (int)page; /* the next allocation of this class finds the block */
    return;
  }
  /* The tail pages first: the head keeps them from a second free meanwhile. */
  const unsigned n = (unsigned)(size >> kPageShift);
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned k = n - 1; k > 0; --k) wasmgpu_atomic_exchange(&h.table[page + k], 0);
  wasmgpu_atomic_exchange(&h.table[page], 0);
}

size_t malloc_usable_size(void *p) {
  struct heap h;
  unsigned page;
  if (!p || !open_heap(&h)) return 0;
  return block_size(&h, p, &page);
}

/* Blocks are 16-byte aligned and their usable sizes multiples of 16, so
 * calloc and realloc move whole words with a plain loop. libc's memset and
 * memcpy would work too, but their many cases (alignments, tails) are many
 * memory accesses to translate at run time, which lavapipe compiled for
 * minutes in a kernel that calls realloc. */
void *calloc(size_t count, size_t size) {
  if (size && count > (size_t)-1 / size) return 0;
  unsigned *p = malloc(count * size);
  if (!p) return 0;
#pragma clang loop unroll(disable) vectorize(disable)
  for (size_t k = 0; k < (count * size + 3) / 4; ++k) p[k] = 0; /* freed blocks keep their bytes */
  return p;
}

void *realloc(void *p, size_t n) {
  if (!p) return malloc(n);
  if (n == 0) {
    free(p);
    return 0;
  }
  const size_t have = malloc_usable_size(p);
  if (n <= have) return p;
  unsigned *q = malloc(n);
  if (!q) return 0; /* p stays allocated, as C says */
#pragma clang loop unroll(disable) vectorize(disable)
  for (size_t k = 0; k < have / 4; ++k) q[k] = ((const unsigned *)p)[k];
  free(p);
  return q;
}

/* Blocks are aligned to their size (small) or to 4 KiB (large), so a block
 * of at least `alignment` bytes is aligned to it. */
void *aligned_alloc(size_t alignment, size_t n) {
  if (alignment == 0 || (alignment & (alignment - 1)) || alignment > kPageBytes) return 0;
  return malloc(n < alignment ? alignment : n);
}

int posix_memalign(void **out, size_t alignment, size_t n) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1))) return EINVAL;
  void *p = aligned_alloc(alignment, n);
  if (!p) return alignment > kPageBytes ? EINVAL : ENOMEM;
  *out = p;
  return 0;
}

/* wasi-libc's own names of the same functions (what its other objects call). */
void *__libc_malloc(size_t n) { return malloc(n); }
void __libc_free(void *p) { free(p); }
void *__libc_calloc(size_t count, size_t size) { return calloc(count, size); }
