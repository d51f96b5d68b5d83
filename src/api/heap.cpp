#include "api/heap.h"

#include <algorithm>

namespace wasmgpu::detail {

namespace {

// wasmgpu_heap_slot_'s magic words ("WGPUHEAP").
constexpr uint8_t kSlotMagic[8] = {0x57, 0x47, 0x50, 0x55, 0x48, 0x45, 0x41, 0x50};

}  // namespace

HeapSlot find_heap_slot(std::span<const uint8_t> bytes) {
  HeapSlot slot;
  auto it = std::search(bytes.begin(), bytes.end(), std::begin(kSlotMagic), std::end(kSlotMagic));
  if (it == bytes.end()) return slot;
  const size_t at = size_t(it - bytes.begin());
  if (std::search(it + 1, bytes.end(), std::begin(kSlotMagic), std::end(kSlotMagic)) != bytes.end()) {
    slot.error = "the module holds the heap slot's magic words (WGPUHEAP, wasmgpu_heap.c) more than once";
    return slot;
  }
  if (at + 16 > bytes.size()) {
    slot.error = "the module's heap slot (wasmgpu_heap.c) is cut short";
    return slot;
  }
  slot.heap_field = at + 8;
  return slot;
}

uint32_t heap_pages(uint64_t heap_bytes) {
  auto metadata = [](uint64_t pages) {
    return (kHeapHeaderBytes + pages * kHeapMetadataPerPage + kHeapPageBytes - 1) / kHeapPageBytes * kHeapPageBytes;
  };
  uint64_t pages = heap_bytes / (kHeapPageBytes + kHeapMetadataPerPage);
  while (pages > 0 && metadata(pages) + pages * kHeapPageBytes > heap_bytes) --pages;
  return uint32_t(pages);
}

}  // namespace wasmgpu::detail
