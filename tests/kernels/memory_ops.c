/* Memory: loads and stores of every width and signedness at any alignment,
 * structs reached by pointer arithmetic, static lookup tables, and local
 * arrays that live on the shadow stack. */
#include <stdint.h>
#include <wasmgpu.h>

static const uint16_t kTable[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
static const char kText[] = "wasmgpu: static data";

struct __attribute__((packed)) record {
  uint8_t tag;
  int16_t small; /* at offset 1: unaligned */
  uint32_t word; /* at offset 3 */
  uint64_t wide; /* at offset 7 */
  float value;   /* at offset 15 */
};

static uint64_t load_unaligned64(const uint8_t *p) {
  uint64_t v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

static void store_unaligned32(uint8_t *p, uint32_t v) { __builtin_memcpy(p, &v, sizeof v); }

WASMGPU_KERNEL(memory_ops)
void memory_ops(int i, const uint8_t *bytes, const struct record *records, uint8_t *out, uint32_t *words) {
  const struct record *r = records + i;
  uint8_t *o = out + 64 * i;
  /* Every load width and signedness, at an offset that is often unaligned. */
  const uint8_t *b = bytes + 3 * i + 1;
  int8_t s8 = (int8_t)b[0];
  uint16_t u16;
  __builtin_memcpy(&u16, b, 2);
  int16_t s16;
  __builtin_memcpy(&s16, b + 1, 2);
  uint32_t u32;
  __builtin_memcpy(&u32, b + 2, 4);
  uint64_t u64 = load_unaligned64(b + 1);
  store_unaligned32(o + 1, (uint32_t)(int32_t)s8);
  store_unaligned32(o + 5, (uint32_t)(int32_t)s16 + u16);
  store_unaligned32(o + 9, u32);
  __builtin_memcpy(o + 13, &u64, 8);
  /* Packed struct fields. */
  o[0] = r->tag;
  int16_t small = r->small;
  __builtin_memcpy(o + 21, &small, 2);
  uint32_t word = r->word ^ kTable[i & 15];
  __builtin_memcpy(o + 23, &word, 4);
  uint64_t wide = r->wide + (uint64_t)(uint8_t)kText[i % (sizeof kText - 1)];
  __builtin_memcpy(o + 27, &wide, 8);
  float value = r->value * 2.0f;
  __builtin_memcpy(o + 35, &value, 4);
  /* A local array indexed by data: lives on the shadow stack. */
  volatile uint32_t scratch[12];
  for (int k = 0; k < 12; ++k) scratch[k] = (uint32_t)k * u32 + kTable[(k + i) & 15];
  uint32_t picked = scratch[u16 % 12] + scratch[(u32 >> 3) % 12];
  __builtin_memcpy(o + 39, &picked, 4);
  /* Aligned word stores through a pointer walked backwards. */
  uint32_t *w = words + 4 * i + 3;
  for (int k = 0; k < 4; ++k) *w-- = word + (uint32_t)k;
  /* 16-bit and byte stores at odd offsets, and the remaining bytes. */
  uint16_t half = (uint16_t)(u32 >> 7);
  __builtin_memcpy(o + 43, &half, 2);
  for (int k = 45; k < 64; ++k) o[k] = (uint8_t)(b[k & 7] + k);
}
