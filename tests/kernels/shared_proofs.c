/* Shared accesses the compiler proves to lie inside the shared range
 * (docs/compiler.md, "Proven shared accesses"): a tile indexed by the local
 * index, proven for workgroups of at most 256 invocations, and the tile read
 * in a counted loop, proven for any workgroup. Launched with 512 invocations
 * per workgroup, invocations 256 and up index past the tile: that proof does
 * not hold for them, and their accesses must reach the module memory behind
 * the tile, as in wasm (tests/e2e/shared_proofs_test.cpp). */
#include <wasmgpu.h>

#define TILE 256

WASMGPU_SHARED unsigned tile[TILE];

WASMGPU_KERNEL(shared_proofs) void shared_proofs(int i, unsigned *out) {
  unsigned l = wasmgpu_local_index();
  tile[l] = l * 3 + 1; /* past the tile for l >= 256: every workgroup writes the same value there */
  wasmgpu_barrier();
  unsigned sum = tile[l];
  unsigned row = (l & 7) * 8; /* words 0..63: written in every workgroup of 64 or more */
  _Pragma("nounroll") for (unsigned k = 0; k < 8; ++k) sum = sum * 7 + tile[row + k];
  out[i] = sum;
}
