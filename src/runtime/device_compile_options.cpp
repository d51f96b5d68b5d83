#include "runtime/device_compile_options.h"

#include <vulkan/vulkan_core.h>

namespace wasmgpu::runtime {

spirv::CompileOptions device_compile_options(const DeviceInfo& device, spirv::CompileOptions requested,
                                             const ProbeResults* probe) {
  requested.subgroup_vote &= device.features.subgroup_vote;
  if (device.driver_id == VK_DRIVER_ID_NVIDIA_PROPRIETARY) requested.loop_exit_breaks = false;
  // Vulkan lets a device without shaderDenormPreserveFloat64 flush f64
  // subnormals, so only that property or a probe that saw them kept lets
  // f64 + - * run without the check that routes subnormal cases to integers.
  const bool kept = device.features.denorm_preserve_f64 || (probe && probe->right(kProbeF64Subnormals));
  if (!kept) requested.f64_subnormals_native = false;
  return requested;
}

}  // namespace wasmgpu::runtime
