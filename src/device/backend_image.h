// A device image behind the device interface: one mip level, moved to and
// from the host whole.
#pragma once

#include <cstdint>

#include "support/result.h"

namespace wasmgpu::device {

enum class ImageFormat { Rgba8Unorm, Rgba32Float, R32Float };

// Bytes of one texel, and the format's name ("rgba8", "rgba32f", "r32f").
uint32_t texel_bytes(ImageFormat format);
const char* to_string(ImageFormat format);

struct ImageDesc {
  uint32_t width = 1, height = 1;
  uint32_t depth = 1;  // with three_d; 2D images have depth 1
  bool three_d = false;
  ImageFormat format = ImageFormat::Rgba8Unorm;
  bool storage = true;   // kernels load and store texels
  bool sampled = false;  // kernels sample it with a sampler
};

class BackendImage {
 public:
  virtual ~BackendImage() = default;
  virtual const ImageDesc& desc() const = 0;
  // The i32 handle a kernel receives for it.
  virtual uint32_t handle() const = 0;
  uint64_t size_bytes() const {
    const ImageDesc& d = desc();
    return uint64_t(d.width) * d.height * d.depth * texel_bytes(d.format);
  }
  virtual Status write(const void* data, uint64_t bytes) = 0;
  virtual Status read(void* out, uint64_t bytes) const = 0;
};

}  // namespace wasmgpu::device
