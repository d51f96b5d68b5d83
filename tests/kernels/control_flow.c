/* Control flow: a switch that compiles to br_table, loops with early exits
 * from several levels, early returns and helper functions. */
#include <stdint.h>
#include <wasmgpu.h>

static uint32_t classify(uint32_t v) {
  switch (v % 11) {
    case 0: return 17;
    case 1: return v * 3;
    case 2: return v ^ 0x5555u;
    case 3: return v >> 3;
    case 4: return v + 1000;
    case 5: return ~v;
    case 6: return v * v;
    case 7: return 7;
    case 9: return v - 9;
    default: return v | 1;
  }
}

static int first_divisor(uint32_t v) {
  if (v < 4) return -1;
  for (uint32_t d = 2; d * d <= v; ++d)
    if (v % d == 0) return (int)d;
  return 0;
}

/* Searches a small grid for the first cell whose value matches; breaks out
 * of two loops at once and continues an outer loop from an inner one. */
static uint32_t grid_search(uint32_t seed) {
  uint32_t found = 0xFFFFFFFFu;
  for (uint32_t row = 0; row < 16; ++row) {
    for (uint32_t col = 0; col < 16; ++col) {
      uint32_t cell = (seed * 2654435761u) ^ (row * 97 + col * 31);
      if ((cell & 0xF) == 0) goto next_row; /* continue the outer loop */
      if ((cell & 0x3FF) == 0x155) {        /* break out of both loops */
        found = row * 16 + col;
        goto done;
      }
    }
  next_row:;
  }
done:
  return found;
}

static uint32_t collatz_steps(uint32_t v, uint32_t limit) {
  uint32_t steps = 0;
  while (v != 1) {
    if (steps == limit) return 0xFFFFu; /* early return from a loop */
    v = (v & 1) ? 3 * v + 1 : v / 2;
    ++steps;
  }
  return steps;
}

WASMGPU_KERNEL(control_flow) void control_flow(int i, const uint32_t *in, uint32_t *out) {
  uint32_t v = in[i];
  uint32_t *o = out + 6 * i;
  o[0] = classify(v);
  o[1] = (uint32_t)first_divisor(v % 100000);
  o[2] = grid_search(v);
  o[3] = collatz_steps((v % 1000) + 1, 200);
  uint32_t acc = 0;
  for (uint32_t k = 0; k < (v & 63); ++k) {
    if (k % 5 == 4) continue;
    acc += classify(v + k);
    if (acc > 0xF0000000u) break;
  }
  o[4] = acc;
  o[5] = v & 1 ? (v & 2 ? 1u : 2u) : (v & 4 ? 3u : 4u);
}
