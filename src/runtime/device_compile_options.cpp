#include "runtime/device_compile_options.h"

#include <vulkan/vulkan_core.h>

namespace wasmgpu::runtime {

spirv::CompileOptions device_compile_options(const DeviceInfo& device, spirv::CompileOptions requested,
                                             const ProbeResults* probe) {
  requested.subgroup_vote &= device.features.subgroup_vote;
  if (device.driver_id == VK_DRIVER_ID_NVIDIA_PROPRIETARY) requested.loop_exit_breaks = false;
  if (probe && probe->wrong(kProbeF64Subnormals)) requested.f64_subnormals_native = false;
  return requested;
}

}  // namespace wasmgpu::runtime
