// The Vulkan implementations of device::BackendImage and
// device::BackendSampler over runtime::Image and runtime::Sampler.
#pragma once

#include "device/backend_image.h"
#include "device/backend_sampler.h"
#include "runtime/image.h"

namespace wasmgpu::vulkan {

class VulkanImage : public device::BackendImage {
 public:
  VulkanImage(runtime::Image image, const device::ImageDesc& desc) : image_(std::move(image)), desc_(desc) {}
  const device::ImageDesc& desc() const override { return desc_; }
  uint32_t handle() const override { return image_.handle(); }
  Status write(const void* data, uint64_t bytes) override { return image_.write(data, bytes); }
  Status read(void* out, uint64_t bytes) const override { return image_.read(out, bytes); }
  runtime::Image& image() { return image_; }

 private:
  runtime::Image image_;
  device::ImageDesc desc_;
};

class VulkanSampler : public device::BackendSampler {
 public:
  explicit VulkanSampler(runtime::Sampler sampler) : sampler_(std::move(sampler)) {}
  uint32_t handle() const override { return sampler_.handle(); }
  runtime::Sampler& sampler() { return sampler_; }

 private:
  runtime::Sampler sampler_;
};

}  // namespace wasmgpu::vulkan
