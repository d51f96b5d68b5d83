// Workgroup-shared memory declared in C: variables the kernel places in the
// data section ".wasmgpu_shared" (WASMGPU_SHARED in include/wasmgpu.h) keep
// their wasm addresses, and every access whose address falls in that range
// goes to the workgroup's own memory instead of linear memory
// (docs/memory-model.md). This finds the range; each back end maps it
// (spirv/workgroup_memory.h, the cpu device's workgroup frames).
#pragma once

#include <cstdint>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::frontend {

// The name of the data segment(s) holding shared variables. wasm-ld keeps a
// custom section name as its own segment and records it in the name section.
inline constexpr const char* kSharedSection = ".wasmgpu_shared";

// The shared range [lo, hi) in wasm addresses, whole words; empty (lo == hi)
// when the module has none.
struct SharedMemory {
  uint32_t lo = 0, hi = 0;
};

// Finds the shared segment's wasm address range in `module` (empty range when
// there is none). Fails when it has initial values other than zero (shared
// memory starts undefined on a GPU), a non-constant offset, or is split.
Result<SharedMemory> find_shared_memory(const wasm::Module& module);

}  // namespace wasmgpu::frontend
