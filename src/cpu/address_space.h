// The cpu device's buffers, all inside one reserved range of host addresses
// that mirrors the 32-bit wasm address space: a buffer at wasm address A
// lives at host address base + A, so a kernel's access is one add after its
// bounds check, and the host reads and writes buffers with plain memcpy.
// Addresses are handed out as docs/memory-model.md says: from
// abi::kBufferAddressBase, 64 KiB aligned, each followed by at least 64 KiB
// that no buffer owns.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "support/result.h"

namespace wasmgpu::cpu {

class AddressSpace {
 public:
  static Result<AddressSpace*> create();  // owned by the caller
  ~AddressSpace();
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  // A zero-filled buffer of `bytes` at a fresh wasm address.
  Result<uint64_t> allocate(uint64_t bytes);
  void release(uint64_t wasm_address);

  uint8_t* host(uint64_t wasm_address) const { return base_ + wasm_address; }
  uint8_t* base() const { return base_; }
  // Per 64 KiB page of the wasm space: where the buffer owning it ends, 0
  // where none does (kernel_abi.h, LaunchContext::page_end).
  const uint64_t* page_end() const { return page_end_.data(); }

 private:
  AddressSpace(uint8_t* base);
  uint8_t* base_;
  std::map<uint64_t, uint64_t> used_;  // wasm address -> bytes of the buffer
  std::vector<uint64_t> page_end_;
};

}  // namespace wasmgpu::cpu
