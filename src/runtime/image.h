// Images and samplers that kernels reach through integer handles (the
// wasmgpu image imports of include/wasmgpu.h; abi/image_abi.h). An Image or
// Sampler takes a slot of its Device's bindless descriptor set (bindless.h)
// when created and gives it back when destroyed.
#pragma once

#include <volk.h>

#include <cstdint>
#include <string>

#include "support/result.h"

namespace wasmgpu::runtime {

struct DeviceState;

enum class ImageFormat : uint8_t {
  Rgba8Unorm,   // 4 bytes a texel; kernels see r, g, b, a in [0, 1]
  Rgba32Float,  // 16 bytes a texel
  R32Float,     // 4 bytes a texel; kernels see (r, 0, 0, 1)
};
uint32_t texel_bytes(ImageFormat format);
const char* to_string(ImageFormat format);  // "rgba8", "rgba32f", "r32f"

struct ImageDesc {
  uint32_t width = 1, height = 1;
  uint32_t depth = 1;  // with three_d; 2D images have depth 1
  bool three_d = false;
  ImageFormat format = ImageFormat::Rgba8Unorm;
  bool storage = true;   // kernels load and store texels (image_load_*, image_store_*)
  bool sampled = false;  // kernels sample it with a Sampler (image_sample_*)
};

// A device-local image with one mip level, zeroed at creation, in
// VK_IMAGE_LAYOUT_GENERAL between commands (storage access and sampling take
// it as it is, so launches need only the memory barriers they already
// record); uploads and downloads move it to the transfer layout and back
// within their own command buffer.
// Move-only; must be destroyed before its Device. write() and read() move
// the whole image as tightly packed texels (x fastest, then y, then z)
// through the Device's staging buffer and wait.
class Image {
 public:
  static Result<Image> create(DeviceState& device, const ImageDesc& desc);

  Image(Image&& other) noexcept;
  Image& operator=(Image&& other) noexcept;
  ~Image();

  const ImageDesc& desc() const { return desc_; }
  // The handle kernels receive (the i32 an Image argument passes).
  uint32_t handle() const { return handle_; }
  // Bytes of the whole image: width * height * depth * texel_bytes.
  uint64_t size_bytes() const;
  DeviceState* device_state() const { return device_; }
  VkImage vk_image() const { return image_; }
  VkImageView view() const { return view_; }  // for descriptors of SPIR-V kernels

  Status write(const void* data, uint64_t size);
  Status read(void* out, uint64_t size) const;

 private:
  Image() = default;
  void release();

  DeviceState* device_ = nullptr;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;
  ImageDesc desc_;
  uint32_t handle_ = 0;
};

enum class Filter : uint8_t { Nearest, Linear };
enum class AddressMode : uint8_t { ClampToEdge, Repeat };

struct SamplerDesc {
  Filter filter = Filter::Nearest;
  AddressMode address_mode = AddressMode::ClampToEdge;  // for every coordinate
};

// Normalised coordinates, one mip level (mipmap mode nearest). Move-only;
// must be destroyed before its Device.
class Sampler {
 public:
  static Result<Sampler> create(DeviceState& device, const SamplerDesc& desc);

  Sampler(Sampler&& other) noexcept;
  Sampler& operator=(Sampler&& other) noexcept;
  ~Sampler();

  const SamplerDesc& desc() const { return desc_; }
  uint32_t handle() const { return handle_; }
  DeviceState* device_state() const { return device_; }
  VkSampler vk_sampler() const { return sampler_; }

 private:
  Sampler() = default;
  void release();

  DeviceState* device_ = nullptr;
  VkSampler sampler_ = VK_NULL_HANDLE;
  SamplerDesc desc_;
  uint32_t handle_ = 0;
};

}  // namespace wasmgpu::runtime
