// The Vulkan implementation of device::BackendBuffer over runtime::Buffer.
#pragma once

#include "device/backend_buffer.h"
#include "runtime/buffer.h"

namespace wasmgpu::vulkan {

class VulkanBuffer : public device::BackendBuffer {
 public:
  explicit VulkanBuffer(runtime::Buffer buffer) : buffer_(std::move(buffer)) {}
  uint64_t size() const override { return buffer_.size(); }
  Status read(void* out, uint64_t bytes, uint64_t offset) const override { return buffer_.read(out, bytes, offset); }
  Status write(const void* data, uint64_t bytes, uint64_t offset) override {
    return buffer_.write(data, bytes, offset);
  }
  Status fill(uint32_t pattern) override { return buffer_.fill(pattern); }
  runtime::Buffer& buffer() { return buffer_; }

 private:
  runtime::Buffer buffer_;
};

}  // namespace wasmgpu::vulkan
