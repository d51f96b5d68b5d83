#include "api/heap.h"

#include "api/module_slot.h"

#include <algorithm>

namespace wasmgpu::detail {

namespace {

// wasmgpu_heap_slot_'s magic words ("WGPUHEAP").
constexpr std::array<uint8_t, 8> kSlotMagic = {0x57, 0x47, 0x50, 0x55, 0x48, 0x45, 0x41, 0x50};

}  // namespace

HeapSlot find_heap_slot(std::span<const uint8_t> bytes) {
  HeapSlot slot;
  const FoundSlot found = find_module_slot(bytes, kSlotMagic, 16);
  if (found.result == SlotSearch::Repeated)
    slot.error = "the module holds the heap slot's magic words (WGPUHEAP, wasmgpu_heap.c) more than once";
  else if (found.result == SlotSearch::CutShort)
    slot.error = "the module's heap slot (wasmgpu_heap.c) is cut short";
  else if (found.result == SlotSearch::Found)
    slot.heap_field = found.fields;
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
