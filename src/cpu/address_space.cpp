#include "cpu/address_space.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "abi/launch_abi.h"
#include "cpu/kernel_abi.h"

namespace wasmgpu::cpu {

namespace {

constexpr uint64_t round_up(uint64_t value, uint64_t to) { return (value + to - 1) / to * to; }

}  // namespace

Result<AddressSpace*> AddressSpace::create() {
  void* base = mmap(nullptr, abi::kAddressSpaceEnd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED)
    return make_error(ErrorCode::Unsupported,
                      std::string("cpu device: reserving 4 GiB of addresses failed: ") + std::strerror(errno));
  return new AddressSpace(static_cast<uint8_t*>(base));
}

AddressSpace::AddressSpace(uint8_t* base) : base_(base), page_end_(kPageCount, 0) {}

AddressSpace::~AddressSpace() { munmap(base_, abi::kAddressSpaceEnd); }

Result<uint64_t> AddressSpace::allocate(uint64_t bytes) {
  // First fit: each buffer takes its size rounded to the alignment, plus the guard.
  const uint64_t span = round_up(bytes, abi::kBufferAlignment) + abi::kBufferGuard;
  uint64_t candidate = abi::kBufferAddressBase;
  for (const auto& [address, size] : used_) {
    if (address >= candidate + span) break;
    candidate = std::max(candidate, address + round_up(size, abi::kBufferAlignment) + abi::kBufferGuard);
  }
  if (candidate + span > abi::kAddressSpaceEnd)
    return make_error(ErrorCode::Unsupported, "cpu device: no room for a buffer of " + std::to_string(bytes) +
                                                  " bytes in the 32-bit wasm address space (" +
                                                  std::to_string(used_.size()) + " buffers mapped)");
  if (bytes > 0 && mprotect(base_ + candidate, round_up(bytes, 4096), PROT_READ | PROT_WRITE) != 0)
    return make_error(ErrorCode::Unsupported, "cpu device: mapping a buffer of " + std::to_string(bytes) +
                                                  " bytes failed: " + std::strerror(errno));
  used_[candidate] = bytes;
  for (uint64_t page = candidate >> kPageShift; page < round_up(candidate + bytes, abi::kBufferAlignment) >> kPageShift;
       ++page)
    page_end_[page] = candidate + bytes;
  return candidate;
}

void AddressSpace::release(uint64_t wasm_address) {
  auto found = used_.find(wasm_address);
  if (found == used_.end()) return;
  const uint64_t bytes = found->second;
  for (uint64_t page = wasm_address >> kPageShift;
       page < round_up(wasm_address + bytes, abi::kBufferAlignment) >> kPageShift; ++page)
    page_end_[page] = 0;
  // Fresh inaccessible pages: the memory goes back, and a later buffer here starts zeroed.
  if (bytes > 0)
    mmap(base_ + wasm_address, round_up(bytes, 4096), PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  used_.erase(found);
}

}  // namespace wasmgpu::cpu
