// Converting launch arguments of the device interface to the runtime's.
#include "vulkan/vulkan_args.h"

#include <cstring>

#include "vulkan/vulkan_buffer.h"
#include "vulkan/vulkan_image.h"

namespace wasmgpu::vulkan {

runtime::LaunchShape runtime_shape(const device::LaunchShape& shape) {
  if (shape.groups) {
    const auto& g = *shape.groups;
    const auto& w = shape.workgroup_size;
    return runtime::LaunchShape::of_grid(runtime::Grid{g[0], g[1], g[2]},
                                         runtime::WorkgroupSize{w[0], w[1] ? w[1] : 1, w[2] ? w[2] : 1});
  }
  return runtime::LaunchShape::linear(shape.n, shape.workgroup_size[0]);
}

runtime::Arg runtime_arg(const device::BackendArg& arg) {
  if (arg.buffer) return runtime::Arg(static_cast<VulkanBuffer*>(arg.buffer)->buffer());
  if (arg.image) return runtime::Arg(static_cast<VulkanImage*>(arg.image)->image());  // its handle
  if (arg.sampler) return runtime::Arg(static_cast<VulkanSampler*>(arg.sampler)->sampler());
  switch (arg.scalar) {
    case ScalarType::I32:
    case ScalarType::U32: return runtime::Arg(uint32_t(arg.bits));
    case ScalarType::I64:
    case ScalarType::U64: return runtime::Arg(uint64_t(arg.bits));
    case ScalarType::F32: {
      float value;
      const uint32_t bits = uint32_t(arg.bits);
      std::memcpy(&value, &bits, 4);
      return runtime::Arg(value);
    }
    case ScalarType::F64: {
      double value;
      std::memcpy(&value, &arg.bits, 8);
      return runtime::Arg(value);
    }
  }
  return runtime::Arg(uint32_t(arg.bits));
}

std::vector<runtime::Arg> runtime_args(std::span<const device::BackendArg> args) {
  std::vector<runtime::Arg> out;
  out.reserve(args.size());
  for (const device::BackendArg& arg : args) out.push_back(runtime_arg(arg));
  return out;
}

std::vector<runtime::SpirvArg> spirv_args(std::span<const device::BackendArg> args) {
  std::vector<runtime::SpirvArg> out;
  out.reserve(args.size());
  for (const device::BackendArg& arg : args) {
    switch (arg.kind) {
      case device::BackendArg::Kind::Buffer:
        out.push_back(runtime::SpirvArg::buffer(static_cast<VulkanBuffer*>(arg.buffer)->buffer()));
        break;
      case device::BackendArg::Kind::Scalar: out.push_back(runtime::SpirvArg::scalar(arg.scalar, arg.bits)); break;
      case device::BackendArg::Kind::Bytes:
        out.push_back(runtime::SpirvArg::bytes(arg.bytes.data(), arg.bytes.size()));
        break;
      case device::BackendArg::Kind::Image:
        // Images stay in GENERAL between commands (runtime/image.h).
        out.push_back(
            runtime::SpirvArg::image(static_cast<VulkanImage*>(arg.image)->image().view(), VK_IMAGE_LAYOUT_GENERAL));
        break;
      case device::BackendArg::Kind::Sampler:
        out.push_back(runtime::SpirvArg::sampler(static_cast<VulkanSampler*>(arg.sampler)->sampler().vk_sampler()));
        break;
    }
  }
  return out;
}

}  // namespace wasmgpu::vulkan
