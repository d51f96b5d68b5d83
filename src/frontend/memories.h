// Several memories (multi-memory, WebAssembly 3.0). Memory 0 is the module
// memory of docs/memory-model.md: it sits below kBufferAddressBase in the one
// wasm address space of a launch, and the runtime's buffers extend it. Every
// further memory is a bounded region of its own, outside that address space:
// the runtime reserves one device buffer for all of them, each memory at its
// own offset, and keeps each one's size and grow limit in the InstanceState
// (abi/launch_abi.h, "extra memories"). An access to memory k >= 1 is checked
// against memory k's current size and touches only its bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::frontend {

// The type of memory `index` in the memory index space (imports first).
std::optional<wasm::MemoryType> memory_type(const wasm::Module& module, uint32_t index);

// Bytes reserved for a memory of this type: the declared maximum, capped at
// `cap_without_max` when there is none (and at 4 GiB), never less than the
// initial size.
uint64_t reserve_bytes_of(const wasm::MemoryType& memory, uint64_t cap_without_max);

// A memory after the first, as the runtime lays it out.
struct ExtraMemory {
  uint32_t index = 0;          // in the memory index space (>= 1)
  uint64_t buffer_offset = 0;  // byte offset in the extra-memories buffer (64 KiB aligned)
  uint64_t reserve_bytes = 0;  // bytes reserved there (memory.grow fails beyond)
  uint32_t initial_pages = 0;
  uint32_t limit_pages = 0;   // min(declared max or 65536, reserve / 64 KiB)
  uint32_t state_offset = 0;  // its record in the InstanceState (abi::kExtraMemory*)
};

struct ExtraMemories {
  std::vector<ExtraMemory> memories;  // memories 1..n-1, in index order
  uint64_t buffer_bytes = 0;          // size of the buffer holding them all
};

// A memory without a declared maximum may grow to this much (as memory 0).
inline constexpr uint64_t kExtraMemoryReserveWithoutMaximum = 64ull << 20;
// A larger declared maximum is capped here (growth beyond fails).
inline constexpr uint64_t kExtraMemoryReserveCap = 256ull << 20;
// The buffer of all extra memories must not exceed this (what lavapipe and
// the H200 allocate at once); a module needing more is refused.
inline constexpr uint64_t kExtraMemoriesMaxBytes = 1ull << 30;

// The layout of memories 1..n-1, their InstanceState records starting at
// `state_offset` (InstanceLayout::memories_offset). Empty for one memory.
ExtraMemories extra_memories(const wasm::Module& module, uint32_t state_offset);

// The initial bytes of memory `index` (its initial size, the active data
// segments that target it copied in). Fails, naming the segment, for one
// that does not fit (instantiation traps) or whose offset is not a constant.
Result<std::vector<uint8_t>> initial_memory_image(const wasm::Module& module, uint32_t index);

}  // namespace wasmgpu::frontend
