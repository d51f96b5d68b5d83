// The WGSL every kernel shares, before its own functions: the bindings of
// wgsl_abi.h, the workgroup-shared array, the trap record, address
// translation (the shared range, the stack window, the module memory, the
// region table),
// loads and stores of 1, 2 and 4 bytes at any alignment, and the numeric
// operations whose wasm semantics WGSL's own operators do not give
// (trapping division and conversions, exact comparisons, min/max, and
// correctly rounded integer-to-float conversion).
#pragma once

#include <cstdint>
#include <string>

namespace wasmgpu::wgsl {

struct PreludeShape {
  uint32_t buffer_bindings = 0;  // data buffer bindings (bufK), 1 at the least
  uint64_t memory_bytes = 0;     // the module memory's size (its initial pages)
  uint32_t arg_count = 0;        // kernel arguments after the invocation index
  // The shadow stack (frontend::StackLayout): stack_slot_bytes == 0 when the
  // kernel has none; else each invocation's window [stack_window_lo,
  // stack_hi) lives in its slot of the `stk` binding (stack_binding).
  uint32_t stack_slot_bytes = 0;
  uint32_t stack_binding = 0;
  uint32_t stack_lo = 0;
  uint32_t stack_window_lo = 0;
  uint32_t stack_hi = 0;
  // Workgroup-shared memory (frontend/shared_memory.h): the wasm range
  // [shared_lo, shared_lo + shared_bytes) lives in `var<workgroup> shm`,
  // binding slot shared_slot of the word helpers; shared_bytes == 0: none.
  uint32_t shared_lo = 0;
  uint32_t shared_bytes = 0;
  bool subgroups = false;  // the kernel uses subgroup operations (`enable subgroups;`)
};

// The word helpers' slot of the workgroup-shared array: after the buffers
// and the stack, whether or not the kernel has a stack.
inline uint32_t shared_slot(const PreludeShape& shape) { return shape.buffer_bindings + 2; }

std::string runtime_prelude(const PreludeShape& shape);

}  // namespace wasmgpu::wgsl
