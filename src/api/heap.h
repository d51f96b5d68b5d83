// The host side of the device heap that kernels allocate from (malloc in C:
// include/wasmgpu_heap.c; Rust's global allocator: rust/wasmgpu.rs;
// AssemblyScript's `new`: assemblyscript/heap_runtime.ts): the heap slot
// that a module holds when its kernels allocate, found by its magic words
// "WGPUHEAP", and the heap's geometry (docs/memory-model.md, "The device
// heap"). The kernel side owns the heap's layout; the host only sizes it,
// zero-fills it (every page free) and writes its address and page count
// into the slot (all ones until then) before the module's memory is made
// from its data segments.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace wasmgpu::detail {

// The default size of a module's heap (WASMGPU_HEAP, ModuleOptions::heap_bytes).
inline constexpr uint64_t kDefaultHeapBytes = uint64_t(8) << 20;
// The bounds on a heap's size: one page and its metadata, and 1 GiB (a
// quarter of the launch's 32-bit wasm address space).
inline constexpr uint64_t kMinHeapBytes = uint64_t(8) << 10;
inline constexpr uint64_t kMaxHeapBytes = uint64_t(1) << 30;
// The allocator's page size and the metadata words before the page table.
inline constexpr uint64_t kHeapPageBytes = 4096;
inline constexpr uint64_t kHeapHeaderBytes = 64;
// Metadata per page: a page-table word and 8 bitmap words.
inline constexpr uint64_t kHeapMetadataPerPage = 4 * 9;

// Byte offset in `bytes` (a wasm binary) of the slot's `heap` word, followed
// by its `pages` word; nullopt when the module holds no slot (it never
// allocates). More than one slot is an error (returned as a message).
struct HeapSlot {
  std::optional<size_t> heap_field;
  std::string error;
};
HeapSlot find_heap_slot(std::span<const uint8_t> bytes);

// The number of 4 KiB pages a heap of `heap_bytes` holds after its metadata
// (the page table and bitmaps, rounded up to a page).
uint32_t heap_pages(uint64_t heap_bytes);

}  // namespace wasmgpu::detail
