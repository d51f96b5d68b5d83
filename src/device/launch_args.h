// What a launch hands a backend kernel: its shape and its arguments, already
// checked against the kernel's interface by the API.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "interface/kernel_interface.h"

namespace wasmgpu::device {

class BackendBuffer;
class BackendImage;
class BackendSampler;

struct LaunchShape {
  // 1-D: invocations 0..n-1.
  uint32_t n = 0;
  // Invocations per workgroup; 0 in a dimension: the kernel's own size or
  // the backend's default.
  std::array<uint32_t, 3> workgroup_size = {0, 0, 0};
  // Set for a grid: workgroups in x, y, z.
  std::optional<std::array<uint32_t, 3>> groups;
};

// One argument in parameter order. The objects belong to the backend that
// runs the kernel (the API checks the device before it binds them).
struct BackendArg {
  enum class Kind { Scalar, Bytes, Buffer, Image, Sampler };
  Kind kind = Kind::Scalar;
  ScalarType scalar = ScalarType::I32;  // Scalar: the parameter's type
  uint64_t bits = 0;                    // Scalar: the value's bits
  std::span<const uint8_t> bytes;       // Bytes
  BackendBuffer* buffer = nullptr;
  BackendImage* image = nullptr;
  BackendSampler* sampler = nullptr;
};

}  // namespace wasmgpu::device
