// A device buffer behind the device interface: bytes the host reads and
// writes and kernels access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "support/result.h"

namespace wasmgpu::device {

class BackendBuffer {
 public:
  virtual ~BackendBuffer() = default;
  virtual uint64_t size() const = 0;
  // Host access; the caller orders it after every submission that uses the
  // buffer.
  virtual Status read(void* out, uint64_t bytes, uint64_t offset) const = 0;
  virtual Status write(const void* data, uint64_t bytes, uint64_t offset) = 0;
  // Sets every 32-bit word to `pattern`.
  virtual Status fill(uint32_t pattern) = 0;
  // The address shaders reach the buffer at (Vulkan's buffer device
  // address); nullopt on devices without one and for staging buffers.
  virtual std::optional<uint64_t> device_address() const { return std::nullopt; }
  // A staging buffer's host memory (DeviceBackend::create_staging_buffer),
  // else null.
  virtual std::byte* host_data() { return nullptr; }
  // The buffer's wasm address (docs/memory-model.md) where the device gives
  // buffers fixed ones a host may know (the cpu device), else nullopt.
  virtual std::optional<uint64_t> wasm_address() const { return std::nullopt; }
};

}  // namespace wasmgpu::device
