/* Recursion: direct (fib, ackermann, quicksort, a tree walk), mutual
 * (is_even/is_odd) and through function pointers (an expression evaluator
 * whose node handlers call back into it). `nest` recurses exactly `n` deep,
 * for the call stack exhaustion tests. */
#include <stdint.h>
#include <wasmgpu.h>

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static uint32_t ackermann(uint32_t m, uint32_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

static void quicksort(int32_t *a, int lo, int hi) {
  if (lo >= hi) return;
  int32_t pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      int32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

/* A binary search tree in an array of nodes (index 0 = no child). */
struct node {
  uint32_t key, left, right;
};

static uint32_t insert(struct node *nodes, uint32_t root, uint32_t fresh) {
  if (root == 0) return fresh;
  if (nodes[fresh].key < nodes[root].key)
    nodes[root].left = insert(nodes, nodes[root].left, fresh);
  else
    nodes[root].right = insert(nodes, nodes[root].right, fresh);
  return root;
}

/* In-order walk: a position-weighted sum, so that the order matters. */
static uint64_t walk(const struct node *nodes, uint32_t root, uint32_t *position) {
  if (root == 0) return 0;
  uint64_t sum = walk(nodes, nodes[root].left, position);
  sum += (uint64_t)nodes[root].key * ++*position;
  return sum + walk(nodes, nodes[root].right, position);
}

static int is_odd(uint32_t n);
static int is_even(uint32_t n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(uint32_t n) { return n == 0 ? 0 : is_even(n - 1); }

/* Expressions in prefix form over 12 words: op, then operands; a leaf is the
 * next word's value. Reading past the end gives 0. */
typedef int64_t (*handler)(const uint32_t *code, uint32_t *at);
static int64_t eval(const uint32_t *code, uint32_t *at);
static uint32_t next_word(const uint32_t *code, uint32_t *at) { return *at < 12 ? code[(*at)++] : 0; }
static int64_t leaf(const uint32_t *code, uint32_t *at) { return (int64_t)next_word(code, at) - 50; }
static int64_t add(const uint32_t *code, uint32_t *at) {
  int64_t a = eval(code, at);
  return a + eval(code, at);
}
static int64_t mul(const uint32_t *code, uint32_t *at) {
  int64_t a = eval(code, at);
  return a * eval(code, at);
}
static int64_t neg(const uint32_t *code, uint32_t *at) { return -eval(code, at); }
static handler handlers[4] = {leaf, add, mul, neg};
static int64_t eval(const uint32_t *code, uint32_t *at) {
  uint32_t op = next_word(code, at) % 4;
  return handlers[op](code, at);
}

/* Recursion that clang cannot turn into a loop (the result is used after the
 * call, combined with memory) and keeps out of its caller: nest(n) has n
 * nested calls of itself below it. */
__attribute__((noinline)) static uint32_t nest(uint32_t n, uint32_t *scratch) {
  if (n == 0) return 1;
  uint32_t below = nest(n - 1, scratch);
  scratch[n & 3] += below;
  return below * 3 + n + scratch[(n + 1) & 3];
}

WASMGPU_KERNEL(recursion) void recursion(int i, const uint32_t *in, uint32_t *out) {
  const uint32_t *v = in + 40 * i;
  uint32_t *o = out + 12 * i;
  o[0] = fib(v[0] % 12);
  o[1] = ackermann(v[1] % 3, v[2] % 6);
  o[2] = (uint32_t)is_even(v[3] % 500);

  int32_t a[24];
  for (int k = 0; k < 24; ++k) a[k] = (int32_t)(v[4 + k] % 1000) - 500;
  quicksort(a, 0, 23);
  uint32_t h = 0;
  for (int k = 0; k < 24; ++k) h = h * 31 + (uint32_t)a[k];
  o[3] = h;
  o[4] = (uint32_t)a[0];
  o[5] = (uint32_t)a[23];

  struct node nodes[13];
  uint32_t root = 0;
  for (uint32_t k = 1; k < 13; ++k) {
    nodes[k].key = v[k] % 100;
    nodes[k].left = nodes[k].right = 0;
    root = insert(nodes, root, k);
  }
  uint32_t position = 0;
  uint64_t sum = walk(nodes, root, &position);
  o[6] = (uint32_t)sum;
  o[7] = (uint32_t)(sum >> 32);

  uint32_t code[12];
  for (int k = 0; k < 12; ++k) code[k] = v[28 + k] % 100;
  uint32_t at = 0;
  int64_t value = eval(code, &at);
  o[8] = (uint32_t)value;
  o[9] = (uint32_t)((uint64_t)value >> 32);
  o[10] = at;
  uint32_t scratch[4] = {0, 0, 0, 0};
  o[11] = nest(v[0] % 64, scratch);
}

/* Recurses `depths[i]` deep; out[i] gets the result. */
WASMGPU_KERNEL(nest_depth) void nest_depth(int i, const uint32_t *depths, uint32_t *out) {
  uint32_t scratch[4] = {0, 0, 0, 0};
  out[i] = nest(depths[i], scratch);
}
