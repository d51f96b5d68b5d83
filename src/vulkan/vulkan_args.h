// The device interface's launch arguments as the runtime's kernels take
// them.
#pragma once

#include <span>
#include <vector>

#include "device/launch_args.h"
#include "runtime/launch.h"
#include "runtime/recorded_launch.h"
#include "runtime/spirv_kernel.h"

namespace wasmgpu::vulkan {

runtime::LaunchShape runtime_shape(const device::LaunchShape& shape);
runtime::Arg runtime_arg(const device::BackendArg& arg);
std::vector<runtime::Arg> runtime_args(std::span<const device::BackendArg> args);
std::vector<runtime::SpirvArg> spirv_args(std::span<const device::BackendArg> args);

}  // namespace wasmgpu::vulkan
