/* Integer arithmetic of every width: each invocation derives operands from its
 * inputs and writes every result, so that the GPU can be compared with native
 * code word for word. No undefined behaviour: divisors are made non-zero and
 * signed overflow is avoided by computing in unsigned types. */
#include <stdint.h>
#include <wasmgpu.h>

#define RESULTS_PER_ITEM 48

static uint32_t rotl32(uint32_t x, unsigned k) {
  k &= 31;
  return k ? (x << k) | (x >> (32 - k)) : x;
}
static uint64_t rotr64(uint64_t x, unsigned k) {
  k &= 63;
  return k ? (x >> k) | (x << (64 - k)) : x;
}

WASMGPU_KERNEL(integer_ops)
void integer_ops(int i, const uint32_t *a32, const uint64_t *a64, uint64_t *out) {
  uint32_t x = a32[2 * i], y = a32[2 * i + 1];
  uint64_t p = a64[2 * i], q = a64[2 * i + 1];
  int32_t sx = (int32_t)x, sy = (int32_t)y;
  int64_t sp = (int64_t)p, sq = (int64_t)q;
  uint32_t ny = y ? y : 7u; /* non-zero divisors */
  uint64_t nq = q ? q : 11u;
  int32_t sny = (sy == 0 || (sy == -1 && sx == INT32_MIN)) ? 3 : sy;
  int64_t snq = (sq == 0 || (sq == -1 && sp == INT64_MIN)) ? 5 : sq;
  uint64_t *o = out + (uint64_t)i * RESULTS_PER_ITEM;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = x * y;
  o[3] = x / ny;
  o[4] = x % ny;
  o[5] = (uint32_t)(sx / sny);
  o[6] = (uint32_t)(sx % sny);
  o[7] = x & y;
  o[8] = x | y;
  o[9] = x ^ y;
  o[10] = x << (y & 31);
  o[11] = x >> (y & 31);
  o[12] = (uint32_t)(sx >> (y & 31));
  o[13] = rotl32(x, y);
  o[14] = x ? (uint32_t)__builtin_clz(x) : 32u;
  o[15] = x ? (uint32_t)__builtin_ctz(x) : 32u;
  o[16] = (uint32_t)__builtin_popcount(x);
  o[17] = p + q;
  o[18] = p - q;
  o[19] = p * q;
  o[20] = p / nq;
  o[21] = p % nq;
  o[22] = (uint64_t)(sp / snq);
  o[23] = (uint64_t)(sp % snq);
  o[24] = p & q;
  o[25] = p | q;
  o[26] = p ^ q;
  o[27] = p << (q & 63);
  o[28] = p >> (q & 63);
  o[29] = (uint64_t)(sp >> (q & 63));
  o[30] = rotr64(p, (unsigned)q);
  o[31] = p ? (uint64_t)__builtin_clzll(p) : 64u;
  o[32] = p ? (uint64_t)__builtin_ctzll(p) : 64u;
  o[33] = (uint64_t)__builtin_popcountll(p);
  o[34] = (uint64_t)(int64_t)sx;         /* sign extension */
  o[35] = (uint64_t)x;                   /* zero extension */
  o[36] = (uint32_t)p;                   /* wrap */
  o[37] = (uint64_t)(int64_t)(int8_t)x;  /* extend8_s */
  o[38] = (uint64_t)(int64_t)(int16_t)x; /* extend16_s */
  o[39] = (uint64_t)(int64_t)(int32_t)p; /* extend32_s */
  o[40] = (sx < sy) | (x < y) << 1 | (sx <= sy) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5;
  o[41] = (sp < sq) | (p < q) << 1 | (sp >= sq) << 2 | (p <= q) << 3 | (p == q) << 4 | (!p) << 5;
  o[42] = (uint64_t)(uint32_t)(sx > 0 ? sx : -(int64_t)sx);
  o[43] = x > y ? p : q; /* select */
  o[44] = (uint64_t)(uint16_t)x * (uint64_t)(uint8_t)y;
  o[45] = ((uint64_t)x << 32 | y) / ((uint64_t)ny | 1u);
  o[46] = (uint64_t)((int64_t)sx * (int64_t)sy);
  o[47] = (p >> 32) * (q & 0xFFFFFFFFu) + (uint32_t)(p * 0x9E3779B97F4A7C15ull >> 40);
}
