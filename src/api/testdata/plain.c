/* A kernel without parameter metadata: the host API knows only its wasm
 * signature (pointers are plain i32). */
#include <wasmgpu.h>

WASMGPU_KERNEL(plain_copy) void plain_copy(int i, const int *src, int *dst, int add) { dst[i] = src[i] + add; }
