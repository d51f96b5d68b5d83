// A slot that kernel-side C code (wasmgpu_runtime.c's print slot,
// wasmgpu_heap.c's heap slot) puts in a module's static data, found in the
// wasm binary by its 8 magic words so that the runtime can fill in the
// fields after them before loading.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace wasmgpu::detail {

enum class SlotSearch { Found, Absent, Repeated, CutShort };

struct FoundSlot {
  SlotSearch result = SlotSearch::Absent;
  size_t fields = 0;  // Found: byte offset of the first field after the magic words
};

// Where the one slot of `slot_bytes` bytes (magic words included) starting
// with `magic` lies in `bytes`.
FoundSlot find_module_slot(std::span<const uint8_t> bytes, const std::array<uint8_t, 8>& magic, size_t slot_bytes);

}  // namespace wasmgpu::detail
