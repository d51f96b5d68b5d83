/* The kernel side of printf, puts, putchar, WASI fd_write, assert and abort
 * (docs/kernel-guide.md, "Printing and assert").
 *
 * `wasmgpu cc` and the CMake kernel rule compile this file and put it into the
 * kernels' libc in place of wasi-libc's printf.o, puts.o, putchar.o,
 * assert.o and abort.o, so that only a kernel that calls one of these links
 * it. Nothing is formatted on the device: each call appends one record to
 * the module's print ring (a device buffer the runtime allocates, whose wasm
 * address it writes into wasmgpu_print_slot_ at load) with one atomic add
 * and plain word stores; the host formats the records after the launch.
 *
 * The ring, in 32-bit words:
 *   [0] words used (atomic add)      [1] capacity in words (after the header)
 *   [2] words dropped                 [3] records dropped
 *   [4] 1 once an assert or abort claimed the trap words [5..10]:
 *       [5] kind, [6] invocation, [7] line, [8] expr, [9] file, [10] function
 *   [11] unused; the records follow from word 12.
 * A record: [0] kind | words << 8, [1] invocation, [2] a, [3] b, payload:
 *   kind 0 filler:  only word [0]: the words up to the capacity that the
 *                   first reservation not to fit got
 *   kind 1 printf:  a = format address, b = va_list address; the argument
 *                   area's words (from b, up to the last conversion's end)
 *   kind 2 bytes:   a = fd, b = byte count; the bytes
 * The layout is the host's too (src/api/print_ring.h). */
#include <stdarg.h>
#include <stddef.h>

#include "wasmgpu.h"

/* The runtime finds this by its magic words and writes the ring's address
 * into `ring` before the module's memory is created. */
struct wasmgpu_print_slot {
  unsigned magic[2];
  volatile unsigned *ring;
};
__attribute__((used)) struct wasmgpu_print_slot wasmgpu_print_slot_ = {{0x52504757u, 0x544e4952u}, 0};

enum { kRingHeaderWords = 12, kKindPrintf = 1, kKindBytes = 2, kKindAssert = 3, kKindAbort = 4 };

static unsigned invocation_index(void) {
  unsigned nx = wasmgpu_workgroup_count(0) * wasmgpu_workgroup_size(0);
  unsigned ny = wasmgpu_workgroup_count(1) * wasmgpu_workgroup_size(1);
  return wasmgpu_global_id(0) + nx * (wasmgpu_global_id(1) + ny * wasmgpu_global_id(2));
}

/* Space for a record of `words` words, or null (counted as dropped). */
static volatile unsigned *reserve(unsigned words) {
  volatile unsigned *ring = wasmgpu_print_slot_.ring;
  if (!ring) return 0;
  unsigned at = (unsigned)wasmgpu_atomic_add((volatile int *)&ring[0], (int)words);
  if (at > ring[1] || words > ring[1] - at) {
    /* The one reservation that crosses the end leaves a filler record (kind
     * 0) in the words it got, so the host knows where the records end. */
    if (at < ring[1]) ring[kRingHeaderWords + at] = (ring[1] - at) << 8;
    wasmgpu_atomic_add((volatile int *)&ring[2], (int)words);
    wasmgpu_atomic_add((volatile int *)&ring[3], 1);
    return 0;
  }
  return ring + kRingHeaderWords + at;
}

/* The end of the arguments `format` reads from the va_list at `va`: the
 * same rules as the host's formatter (src/api/print_ring.cpp). One byte load
 * per step of a small state machine: every load of an address the compiler
 * cannot place costs a region-table search, which drivers (lavapipe above
 * all) compile slowly inside a loop. */
static unsigned arguments_end(const char *format, unsigned va) {
  enum { kText, kSpec, kLength } state = kText;
  unsigned size = 4;
#pragma clang loop unroll(disable) vectorize(disable)
  for (const char *p = format;; ++p) {
    const char c = *p;
    if (!c) break;
    if (state == kText) {
      if (c == '%') state = kSpec, size = 4;
      continue;
    }
    if (state == kSpec && c == '%') {
      state = kText;
      continue;
    }
    if (c == '*') {
      va += 4; /* a width or precision argument: an int */
      continue;
    }
    if (c == 'l' && state == kLength) size = 8; /* ll */
    if (c == 'j' || c == 'q' || c == 'L') size = c == 'L' ? 16 : 8;
    if (c == 'h' || c == 'l' || c == 'j' || c == 'q' || c == 'z' || c == 't' || c == 'L') {
      state = kLength;
      continue;
    }
    if ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == ' ' || c == '#' || c == '\'') continue;
    /* The conversion. */
    if (c == 'f' || c == 'F' || c == 'e' || c == 'E' || c == 'g' || c == 'G' || c == 'a' || c == 'A')
      size = size == 16 ? 16 : 8;
    va = ((va + size - 1) & ~(size - 1)) + size;
    state = kText;
  }
  return va;
}

int vprintf(const char *restrict format, va_list ap) {
  const unsigned va = (unsigned)ap;
  const unsigned arg_words = (arguments_end(format, va) - va + 3) / 4;
  volatile unsigned *r = reserve(4 + arg_words);
  if (!r) return -1;
  r[0] = kKindPrintf | (4 + arg_words) << 8;
  r[1] = invocation_index();
  r[2] = (unsigned)format;
  r[3] = va;
  const unsigned *args = (const unsigned *)va;
#pragma clang loop unroll(disable) vectorize(disable)
  for (unsigned i = 0; i < arg_words; ++i) r[4 + i] = args[i];
  return 0;
}

int printf(const char *restrict format, ...) {
  va_list ap;
  va_start(ap, format);
  int result = vprintf(format, ap);
  va_end(ap);
  return result;
}

/* wasi's ciovec: a wasm32 pointer and length. */
struct wasmgpu_ciovec {
  const unsigned char *buf;
  unsigned long len;
};

/* Appends the bytes of `count` pieces to one record for `fd`. */
static int write_pieces(unsigned fd, const struct wasmgpu_ciovec *pieces, unsigned count) {
  unsigned total = 0;
  for (unsigned i = 0; i < count; ++i) total += (unsigned)pieces[i].len;
  const unsigned words = 4 + (total + 3) / 4;
  volatile unsigned *r = reserve(words);
  if (!r) return -1;
  r[0] = kKindBytes | words << 8;
  r[1] = invocation_index();
  r[2] = fd;
  r[3] = total;
  unsigned word = 0, at = 0;
  for (unsigned i = 0; i < count; ++i) {
#pragma clang loop unroll(disable) vectorize(disable)
    for (unsigned j = 0; j < (unsigned)pieces[i].len; ++j) {
      word |= (unsigned)pieces[i].buf[j] << (8 * (at & 3));
      if ((++at & 3) == 0) {
        r[4 + at / 4 - 1] = word;
        word = 0;
      }
    }
  }
  if (at & 3) r[4 + at / 4] = word;
  return (int)total;
}

int puts(const char *s) {
  unsigned n = 0;
#pragma clang loop unroll(disable) vectorize(disable)
  while (s[n]) ++n;
  const struct wasmgpu_ciovec pieces[2] = {{(const unsigned char *)s, n}, {(const unsigned char *)"\n", 1}};
  return write_pieces(1, pieces, 2) < 0 ? -1 : 1;
}

int putchar(int c) {
  const unsigned char byte = (unsigned char)c;
  const struct wasmgpu_ciovec piece = {&byte, 1};
  return write_pieces(1, &piece, 1) < 0 ? -1 : byte;
}

/* wasi-libc's __wasi_fd_write calls this; defining it keeps the WASI import
 * out of the module (write(), and stdio's own fd 1 and 2 output). One call
 * is one record, so its iovecs stay together. */
int __imported_wasi_snapshot_preview1_fd_write(int fd, int iovs, int iovs_len, int nwritten) {
  if (fd != 1 && fd != 2) return 8; /* EBADF */
  const int written = write_pieces((unsigned)fd, (const struct wasmgpu_ciovec *)iovs, (unsigned)iovs_len);
  unsigned total = 0;
  for (int i = 0; i < iovs_len; ++i) total += (unsigned)((const struct wasmgpu_ciovec *)iovs)[i].len;
  /* A record dropped for a full buffer still counts as written: the host reports the drop. */
  *(unsigned *)nwritten = written < 0 ? total : (unsigned)written;
  return 0;
}

/* The first assert or abort of a launch keeps its text in the ring's header
 * (never dropped); the trap that follows reports it. */
static void claim_trap(unsigned kind, unsigned line, const char *expr, const char *file, const char *function) {
  volatile unsigned *ring = wasmgpu_print_slot_.ring;
  if (!ring) return;
  if (wasmgpu_atomic_compare_exchange((volatile int *)&ring[4], 0, 1) != 0) return;
  ring[5] = kind;
  ring[6] = invocation_index();
  ring[7] = line;
  ring[8] = (unsigned)expr;
  ring[9] = (unsigned)file;
  ring[10] = (unsigned)function;
}

_Noreturn void __assert_fail(const char *expr, const char *file, int line, const char *function) {
  claim_trap(kKindAssert, (unsigned)line, expr, file, function);
  __builtin_trap();
}

_Noreturn void abort(void) {
  claim_trap(kKindAbort, 0, 0, 0, 0);
  __builtin_trap();
}
