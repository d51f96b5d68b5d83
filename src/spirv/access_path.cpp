#include "spirv/access_path.h"

#include <algorithm>

#include "abi/launch_abi.h"

namespace wasmgpu::spirv {

namespace {
bool overlaps(uint64_t start, uint64_t end, uint64_t lo, uint64_t hi) { return lo < hi && start < hi && end > lo; }
}  // namespace

AccessPath access_path(const AddressFacts& facts, std::optional<uint64_t> start, std::optional<uint64_t> size) {
  if (!start || !size) return AccessPath::Translated;
  // wasm effective addresses are 33-bit sums and sizes at most 32-bit, so
  // this cannot wrap.
  const uint64_t end = *start + *size;
  if (overlaps(*start, end, facts.stack_lo, facts.stack_hi) || overlaps(*start, end, facts.shared_lo, facts.shared_hi))
    return AccessPath::Translated;
  if (end <= std::min<uint64_t>(facts.initial_memory_bytes, abi::kBufferAddressBase)) return AccessPath::Direct;
  // Below the buffers only the module memory is mapped: whether the access
  // fits depends only on the memory's current size.
  if (*start < abi::kBufferAddressBase) return AccessPath::BoundsChecked;
  return AccessPath::Translated;
}

void AccessPathCounts::add(AccessPath path) {
  switch (path) {
    case AccessPath::Direct: ++direct; break;
    case AccessPath::BoundsChecked: ++bounds_checked; break;
    case AccessPath::Translated: ++translated; break;
    case AccessPath::Parameter: ++parameter; break;
    case AccessPath::ParameterUnaligned: ++parameter_unaligned; break;
    case AccessPath::Indexed: ++indexed; break;
    case AccessPath::IndexedUnaligned: ++indexed_unaligned; break;
  }
}

}  // namespace wasmgpu::spirv
