// Assigns each buffer a stable range of the 32-bit wasm address space.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "abi/launch_abi.h"

namespace wasmgpu::runtime {

// First-fit allocator over [begin, end). Each allocation starts at a multiple
// of `alignment` and reserves its size rounded up to `alignment` plus `guard`
// unmapped bytes after it, so that the next buffer starts at least `guard`
// bytes past the end of this one and an overrun traps instead of landing in a
// neighbour. A zero-byte allocation reserves like a one-byte one.
class AddressAllocator {
 public:
  AddressAllocator(uint64_t begin = abi::kBufferAddressBase, uint64_t end = abi::kAddressSpaceEnd,
                   uint64_t alignment = abi::kBufferAlignment, uint64_t guard = abi::kBufferGuard);

  // The base address, or nullopt when no gap is large enough.
  std::optional<uint32_t> allocate(uint64_t size);
  // Releases an allocation made by allocate(); `base` must be live.
  void free(uint32_t base);

  // Bytes reserved (sizes rounded up, guards included) and live allocations.
  uint64_t reserved_bytes() const { return reserved_; }
  size_t allocation_count() const { return spans_.size(); }
  // The largest size a single allocate() could satisfy now.
  uint64_t largest_free_size() const;

 private:
  uint64_t span_for(uint64_t size) const;

  uint64_t begin_, end_, alignment_, guard_;
  std::map<uint64_t, uint64_t> spans_;  // base -> reserved bytes (guard included)
  uint64_t reserved_ = 0;
};

}  // namespace wasmgpu::runtime
