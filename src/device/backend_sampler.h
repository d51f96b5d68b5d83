// A sampler behind the device interface.
#pragma once

#include <cstdint>

namespace wasmgpu::device {

enum class Filter { Nearest, Linear };
enum class AddressMode { ClampToEdge, Repeat };

struct SamplerDesc {
  Filter filter = Filter::Nearest;
  AddressMode address_mode = AddressMode::ClampToEdge;
};

class BackendSampler {
 public:
  virtual ~BackendSampler() = default;
  // The i32 handle a kernel receives for it.
  virtual uint32_t handle() const = 0;
};

}  // namespace wasmgpu::device
