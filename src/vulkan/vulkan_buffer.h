// The Vulkan implementation of device::BackendBuffer over runtime::Buffer.
#pragma once

#include <cstddef>
#include <optional>

#include "device/backend_buffer.h"
#include "runtime/buffer.h"

namespace wasmgpu::vulkan {

class VulkanBuffer : public device::BackendBuffer {
 public:
  explicit VulkanBuffer(runtime::Buffer buffer, bool staging = false) : buffer_(std::move(buffer)), staging_(staging) {}
  uint64_t size() const override { return buffer_.size(); }
  Status read(void* out, uint64_t bytes, uint64_t offset) const override { return buffer_.read(out, bytes, offset); }
  Status write(const void* data, uint64_t bytes, uint64_t offset) override {
    return buffer_.write(data, bytes, offset);
  }
  Status fill(uint32_t pattern) override { return buffer_.fill(pattern); }
  std::optional<uint64_t> device_address() const override {
    if (!buffer_.device_address()) return std::nullopt;
    return uint64_t(buffer_.device_address());
  }
  std::optional<uint64_t> wasm_address() const override {
    if (!buffer_.wasm_address()) return std::nullopt;
    return uint64_t(*buffer_.wasm_address());
  }
  // Only staging buffers hand out their mapping: a device buffer's may be
  // write-combined memory the host reads slowly, or absent.
  std::byte* host_data() override { return staging_ ? static_cast<std::byte*>(buffer_.mapped_data()) : nullptr; }
  runtime::Buffer& buffer() { return buffer_; }

 private:
  runtime::Buffer buffer_;
  bool staging_ = false;
};

}  // namespace wasmgpu::vulkan
