#include <wasmgpu.h>

#include "records.h"

// out[i] is in[(i + 1) % n] scaled by SCALE (set by the CMake OPTIONS).
WASMGPU_DEFINE_KERNEL(rotate_records, WASMGPU_VALUE(int, i), WASMGPU_VALUE(int, n),
                      WASMGPU_CONST_PTR(struct record, in), WASMGPU_PTR(struct record, out)) {
  struct record r = in[(i + 1) % n];
  out[i] = scaled(r, SCALE);
}
