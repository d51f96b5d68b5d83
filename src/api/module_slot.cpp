#include "api/module_slot.h"

#include <algorithm>

namespace wasmgpu::detail {

FoundSlot find_module_slot(std::span<const uint8_t> bytes, const std::array<uint8_t, 8>& magic, size_t slot_bytes) {
  auto it = std::search(bytes.begin(), bytes.end(), magic.begin(), magic.end());
  if (it == bytes.end()) return {};
  if (std::search(it + 1, bytes.end(), magic.begin(), magic.end()) != bytes.end()) return {SlotSearch::Repeated};
  const size_t at = size_t(it - bytes.begin());
  if (at + slot_bytes > bytes.size()) return {SlotSearch::CutShort};
  return {SlotSearch::Found, at + magic.size()};
}

}  // namespace wasmgpu::detail
