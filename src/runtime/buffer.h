// Device buffers that kernels address through the 32-bit wasm address space.
#pragma once

#include <volk.h>

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "support/result.h"

namespace wasmgpu::runtime {

struct DeviceState;

// Internal: a VkBuffer with its own memory allocation.
struct RawBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;            // allocated bytes
  VkDeviceAddress address = 0;  // 0 without SHADER_DEVICE_ADDRESS usage
  void* mapped = nullptr;       // persistently mapped, host-coherent memory, or null
};

// A device buffer with a device address and, when it fits, a stable wasm
// address. Move-only; destroying it frees its memory and its wasm address.
// Must be destroyed before the Device that created it.
//
// The allocation is padded to a multiple of 16 bytes; kernels see exactly
// size() bytes at wasm_address() (the region table maps the requested size;
// the padding only lets shaders touch whole words at the end).
//
// read() and write() are synchronous: through a mapping when the memory is
// host-visible (CPU devices, unified memory), otherwise through the Device's
// staging buffer, waiting for the copy.
class Buffer {
 public:
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  ~Buffer();

  uint64_t size() const { return size_; }
  // The buffer's base address in the wasm address space of every launch on
  // its Device, or nullopt when it did not fit in the 32-bit space.
  std::optional<uint32_t> wasm_address() const { return wasm_address_; }
  VkDeviceAddress device_address() const { return raw_.address; }
  VkBuffer handle() const { return raw_.buffer; }
  // True when read() and write() go through a host mapping.
  bool host_mapped() const { return raw_.mapped != nullptr; }
  // The mapping of a host-mapped buffer, else null.
  void* mapped_data() const { return raw_.mapped; }

  Status write(const void* data, uint64_t size, uint64_t offset = 0);
  Status read(void* out, uint64_t size, uint64_t offset = 0) const;
  // Sets every 32-bit word of the allocation (padding included) to `pattern`.
  Status fill(uint32_t pattern);

  template <class T>
    requires std::is_trivially_copyable_v<T>
  Status write(std::span<const T> values, uint64_t offset = 0) {
    return write(values.data(), values.size_bytes(), offset);
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  Status write(const std::vector<T>& values, uint64_t offset = 0) {
    return write(values.data(), values.size() * sizeof(T), offset);
  }
  // Reads `count` values of T starting at byte `offset`.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  Result<std::vector<T>> read_as(size_t count, uint64_t offset = 0) const {
    std::vector<T> values(count);
    WASMGPU_TRY(read(values.data(), count * sizeof(T), offset));
    return values;
  }

  DeviceState* device_state() const { return device_; }

 private:
  friend Result<Buffer> create_buffer(DeviceState& device, uint64_t size, bool assign_wasm_address);
  friend Result<Buffer> create_staging_buffer(DeviceState& device, uint64_t size);
  Buffer(DeviceState* device, RawBuffer raw, uint64_t size, std::optional<uint32_t> wasm_address);
  void release();

  DeviceState* device_ = nullptr;
  RawBuffer raw_;
  uint64_t size_ = 0;
  std::optional<uint32_t> wasm_address_;
};

// Internal: creates a buffer; `assign_wasm_address` is false only for a
// module's linear memory, which every launch maps at wasm address 0.
Result<Buffer> create_buffer(DeviceState& device, uint64_t size, bool assign_wasm_address);

// Internal: a buffer in host-cached memory (MemoryKind::HostCached), always
// mapped, that copies read and write and kernels never see (no wasm or
// device address): where the host writes inputs and reads results fast.
Result<Buffer> create_staging_buffer(DeviceState& device, uint64_t size);

}  // namespace wasmgpu::runtime
