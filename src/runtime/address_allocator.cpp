#include "runtime/address_allocator.h"

#include <algorithm>
#include <cassert>

#include "runtime/vk_util.h"

namespace wasmgpu::runtime {

AddressAllocator::AddressAllocator(uint64_t begin, uint64_t end, uint64_t alignment, uint64_t guard)
    : begin_(round_up(begin, alignment)), end_(end), alignment_(alignment), guard_(guard) {
  assert(alignment > 0 && guard % alignment == 0);
}

uint64_t AddressAllocator::span_for(uint64_t size) const {
  return round_up(std::max<uint64_t>(size, 1), alignment_) + guard_;
}

std::optional<uint32_t> AddressAllocator::allocate(uint64_t size) {
  if (size > end_) return std::nullopt;  // also keeps span_for from overflowing
  const uint64_t span = span_for(size);
  uint64_t candidate = begin_;
  for (const auto& [base, used] : spans_) {
    if (candidate + span <= base) break;
    candidate = base + used;
  }
  if (candidate + span > end_) return std::nullopt;
  spans_.emplace(candidate, span);
  reserved_ += span;
  return uint32_t(candidate);
}

void AddressAllocator::free(uint32_t base) {
  auto it = spans_.find(base);
  assert(it != spans_.end() && "freeing a wasm address that is not allocated");
  if (it == spans_.end()) return;
  reserved_ -= it->second;
  spans_.erase(it);
}

uint64_t AddressAllocator::largest_free_size() const {
  uint64_t best_span = 0;
  uint64_t cursor = begin_;
  for (const auto& [base, used] : spans_) {
    best_span = std::max(best_span, base - cursor);
    cursor = base + used;
  }
  best_span = std::max(best_span, end_ > cursor ? end_ - cursor : 0);
  return best_span > guard_ ? (best_span - guard_) / alignment_ * alignment_ : 0;
}

}  // namespace wasmgpu::runtime
