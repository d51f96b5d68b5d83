// Foreign SPIR-V kernels (GLSL, HLSL, Slang, rust-gpu) on Vulkan: the
// device::BackendKernel over runtime::SpirvKernel.
#pragma once

#include <memory>
#include <span>

#include "device/backend_kernel.h"
#include "runtime/device_state.h"
#include "interface/kernel_interface.h"

namespace wasmgpu::vulkan {

Result<std::unique_ptr<device::BackendKernel>> create_spirv_kernel(runtime::DeviceState& state,
                                                                   std::span<const uint32_t> words,
                                                                   const KernelInterface& interface);

}  // namespace wasmgpu::vulkan
