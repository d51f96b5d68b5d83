/* Each invocation allocates `bytes` from the device heap and keeps them:
 * out[i] is 1 where malloc gave a block, 0 where the heap was full. The
 * Python tests size the heap with Device.load(heap_bytes=...). */
#include <stdlib.h>
#include <wasmgpu.h>

WASMGPU_DEFINE_KERNEL(keep_block, WASMGPU_VALUE(int, i), WASMGPU_VALUE(unsigned, bytes), WASMGPU_PTR(int, out)) {
  char *block = malloc(bytes);
  if (block) block[bytes - 1] = 1;
  out[i] = block != NULL;
}
