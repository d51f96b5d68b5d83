/* Tail calls, built with -mtail-call (tests/CMakeLists.txt): clang gives
 * `return_call` for the musttail returns below and `return_call_indirect` for
 * the state machine's jumps through its table. A tail-recursive gcd, a count
 * down and a mutually tail-calling pair that run tens of thousands of calls
 * deep, and a scanner whose states tail-call each other through function
 * pointers, one call per input byte (4096 of them). The default call stack
 * depth is 1024: these run only because a tail call takes no frame.
 *
 * The same file is the native reference (gcc has no musttail before 15: there
 * the calls are plain ones, which -O2 turns into jumps too, and which fit the
 * native stack at these depths in any case). */
#include <stdint.h>
#include <wasmgpu.h>

#if defined(__has_attribute)
#if __has_attribute(musttail)
#define TAIL __attribute__((musttail))
#endif
#endif
#ifndef TAIL
#define TAIL
#endif

#define NOINLINE __attribute__((noinline))

NOINLINE static uint32_t gcd(uint32_t a, uint32_t b) {
  if (b == 0) return a;
  TAIL return gcd(b, a % b);
}

/* n calls deep; the accumulator keeps every step in the result. */
NOINLINE static uint32_t count_down(uint32_t n, uint32_t acc) {
  if (n == 0) return acc;
  TAIL return count_down(n - 1, acc * 31u + n);
}

NOINLINE static uint32_t pong(uint32_t n, uint32_t acc);
NOINLINE static uint32_t ping(uint32_t n, uint32_t acc) {
  if (n == 0) return acc;
  TAIL return pong(n - 1, acc + 3u * n);
}
NOINLINE static uint32_t pong(uint32_t n, uint32_t acc) {
  if (n == 0) return ~acc;
  TAIL return ping(n - 1, acc ^ (acc << 5) ^ n);
}

/* A scanner over bytes: words of letters, numbers of digits, everything else
 * separates. Each state handles one byte and tail-calls the next state
 * through the table; `acc` hashes words and sums numbers. */
typedef uint64_t (*state_fn)(const uint8_t *p, uint32_t left, uint64_t acc);
static uint64_t in_space(const uint8_t *p, uint32_t left, uint64_t acc);
static uint64_t in_word(const uint8_t *p, uint32_t left, uint64_t acc);
static uint64_t in_number(const uint8_t *p, uint32_t left, uint64_t acc);
static state_fn const states[3] = {in_space, in_word, in_number};

static uint32_t byte_class(uint8_t c) {
  uint8_t folded = c % 64;
  if (folded < 20) return 1; /* "letters" */
  if (folded < 30) return 2; /* "digits" */
  return 0;
}

NOINLINE static uint64_t in_space(const uint8_t *p, uint32_t left, uint64_t acc) {
  if (left == 0) return acc;
  TAIL return states[byte_class(*p)](p + 1, left - 1, acc + 1);
}
NOINLINE static uint64_t in_word(const uint8_t *p, uint32_t left, uint64_t acc) {
  if (left == 0) return acc ^ 0x5555;
  TAIL return states[byte_class(*p)](p + 1, left - 1, acc * 131 + *p);
}
NOINLINE static uint64_t in_number(const uint8_t *p, uint32_t left, uint64_t acc) {
  if (left == 0) return acc + 7;
  TAIL return states[byte_class(*p)](p + 1, left - 1, acc + (uint64_t)(*p % 10) * 1000003u);
}

/* Item i reads in[1024 * i ...] (4096 bytes); out gets 6 words. */
WASMGPU_KERNEL(tail_calls) void tail_calls(int i, const uint32_t *in, uint32_t *out) {
  const uint32_t *v = in + 1024 * i;
  uint32_t *o = out + 6 * i;
  o[0] = gcd(v[0], v[1] % 100000u + 1);
  o[1] = count_down(v[2] % 50000u + 20000u, 7);
  o[2] = ping(v[3] % 30001u + 10000u, v[4]);
  uint64_t scanned = in_space((const uint8_t *)v, 4096, 0);
  o[3] = (uint32_t)scanned;
  o[4] = (uint32_t)(scanned >> 32);
  o[5] = gcd(v[5] | 1u, v[6] | 1u);
}
