/* 1- and 2-byte stores, memset and memcpy on workgroup-shared arrays, where
 * neighbouring bytes of one 32-bit word belong to different invocations that
 * write them at the same time. Each workgroup then copies its whole shared
 * memory out, for tests/e2e/shared_bytes_test.cpp to compare with the CPU.
 *
 * Compiled with -mbulk-memory: __builtin_memset and __builtin_memcpy become
 * memory.fill and memory.copy. (libc's memset and memcpy give the same
 * results, but their unrolled code makes a shader lavapipe takes minutes to
 * compile: docs/kernel-guide.md, "memset, memcpy and libm".) */
#include <wasmgpu.h>

#define GROUP 64 /* the workgroup size the test launches with */

WASMGPU_SHARED unsigned char bytes[4 * GROUP];
WASMGPU_SHARED unsigned short halves[2 * GROUP];
WASMGPU_SHARED unsigned char scratch[8 * GROUP];

/* Byte k of bytes, halves and scratch laid end to end (1024 bytes). */
static unsigned char shared_byte(unsigned k) {
  if (k < sizeof bytes) return bytes[k];
  k -= sizeof bytes;
  if (k < sizeof halves) return ((const unsigned char *)halves)[k];
  return scratch[k - sizeof halves];
}

WASMGPU_KERNEL(shared_bytes) void shared_bytes(int index, const unsigned char *in, unsigned char *out) {
  (void)index;
  unsigned lid = wasmgpu_local_index(), group = wasmgpu_workgroup_id(0);
  unsigned char seed = in[group * GROUP + lid];
  /* Byte stores: the four bytes of each word are written by four neighbouring invocations. */
  for (unsigned k = 0; k < 4; ++k) bytes[k * GROUP + lid] = (unsigned char)(seed + 7 * k + group);
  /* 16-bit stores: two invocations per word. */
  halves[lid] = (unsigned short)(seed * 257u + group);
  halves[GROUP + lid] = (unsigned short)(lid * 1000u + 1u);
  /* memset of run-time sizes at odd offsets: this invocation's 8 scratch bytes share words with no one,
   * but the inner memset starts and ends inside words. */
  __builtin_memset(scratch + lid * 8, 0x11 * (lid % 15), 8);
  __builtin_memset(scratch + lid * 8 + 1 + lid % 3, seed, 1 + lid % 4);
  wasmgpu_barrier();
  /* memcpy from bytes other invocations wrote, into the last 1 to 3 bytes of this invocation's scratch. */
  unsigned length = 1 + lid % 3;
  __builtin_memcpy(scratch + lid * 8 + 8 - length, bytes + (lid * 3 + 1) % (4 * GROUP - 3), length);
  wasmgpu_barrier();
  for (unsigned k = 0; k < 16; ++k) out[group * 1024 + lid * 16 + k] = shared_byte(lid * 16 + k);
}
