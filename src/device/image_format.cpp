// The texel sizes and names of the device interface's image formats.
#include "device/backend_image.h"

namespace wasmgpu::device {

uint32_t texel_bytes(ImageFormat format) {
  switch (format) {
    case ImageFormat::Rgba8Unorm: return 4;
    case ImageFormat::Rgba32Float: return 16;
    case ImageFormat::R32Float: return 4;
  }
  return 0;
}

const char* to_string(ImageFormat format) {
  switch (format) {
    case ImageFormat::Rgba8Unorm: return "rgba8";
    case ImageFormat::Rgba32Float: return "rgba32f";
    case ImageFormat::R32Float: return "r32f";
  }
  return "?";
}

}  // namespace wasmgpu::device
