// What a Vulkan physical device offers, read once when an Instance is created,
// and why a device cannot run wasmgpu kernels when it cannot.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/result.h"

namespace wasmgpu::runtime {

enum class DeviceType { Other, IntegratedGpu, DiscreteGpu, VirtualGpu, Cpu };

// "discrete GPU", "CPU", ...
const char* to_string(DeviceType type);

struct DeviceLimits {
  std::array<uint32_t, 3> max_workgroup_count{};
  std::array<uint32_t, 3> max_workgroup_size{};
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_shared_memory_bytes = 0;  // maxComputeSharedMemorySize
  uint32_t subgroup_size = 0;
  uint32_t max_storage_buffer_range = 0;
  uint64_t max_memory_allocation_size = 0;
  uint64_t max_buffer_size = 0;  // Vulkan 1.3 maxBufferSize; 0 when unknown
  uint32_t max_push_constants_size = 0;
};

struct DeviceFeatures {
  bool shader_int64 = false;
  bool shader_float64 = false;
  bool shader_int8 = false;
  bool storage_buffer_8bit_access = false;
  bool buffer_device_address = false;
  bool timeline_semaphore = false;
  // Runtime descriptor arrays with non-uniform indexing of storage buffers
  // and partially bound descriptors (the descriptor-indexing subset bindless
  // binding would need).
  bool descriptor_indexing = false;
  // Everything images and samplers need (runtime/bindless.h): descriptor
  // indexing of storage and sampled images with update-after-bind and
  // partially bound arrays, and storage images without a format in the shader.
  bool images = false;
  // Subgroup votes (all/any/equal) in compute shaders.
  bool subgroup_vote = false;
  // Float controls (VkPhysicalDeviceFloatControlsProperties) that compiled
  // kernels request: round to nearest even in both modes, IEEE NaN, infinity
  // and signed zero in exact mode (docs/float-modes.md). A kernel whose mode
  // needs one the device lacks is refused, naming the property.
  bool rounding_rte_f32 = false, rounding_rte_f64 = false;
  bool preserve_specials_f32 = false, preserve_specials_f64 = false;
  // shaderDenormPreserveFloat64: Vulkan then promises f64 subnormals kept.
  bool denorm_preserve_f64 = false;
};

struct DeviceInfo {
  uint32_t index = 0;  // position in vkEnumeratePhysicalDevices
  std::string name;
  DeviceType type = DeviceType::Other;
  std::string driver_name;      // "llvmpipe", "NVIDIA", ...
  std::string driver_info;      // "Mesa 25.0.7 ...", driver version text
  uint32_t api_version = 0;     // packed VK_MAKE_API_VERSION
  uint32_t driver_version = 0;  // vendor-specific packing
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_id = 0;  // VkDriverId; 0 below Vulkan 1.2
  std::array<uint8_t, 16> pipeline_cache_uuid{};
  uint64_t device_local_memory_bytes = 0;  // sum of DEVICE_LOCAL heaps
  DeviceLimits limits;
  DeviceFeatures features;
  // Why wasmgpu kernels cannot run here; empty when they can.
  std::string unusable_reason;

  bool usable() const { return unusable_reason.empty(); }
  // "0 llvmpipe (LLVM 15.0.6, 256 bits) (CPU, Vulkan 1.4.305, llvmpipe)"
  std::string summary() const;
};

// Whether a device with these properties can run wasmgpu kernels; the error
// (Unsupported) says why not. Required: Vulkan 1.2, bufferDeviceAddress,
// shaderInt64, shaderInt8 with storageBuffer8BitAccess. shaderFloat64 is only
// needed by kernels that use f64 and is checked per kernel.
Status check_usable(uint32_t api_version, const DeviceFeatures& features);

// Picks a device from `devices`:
//  - `spec` (what WASMGPU_DEVICE holds) is a device index or a case-insensitive
//    substring of a device name; the first match is chosen, and it must be usable.
//  - Without a spec: the first usable device by type preference -- discrete GPU,
//    integrated GPU, virtual GPU, CPU, other -- in enumeration order within a type.
// Errors list the devices, with the reason each unusable one was skipped.
Result<uint32_t> choose_device(const std::vector<DeviceInfo>& devices, std::optional<std::string_view> spec);

// "devices: 0 llvmpipe (...); 1 ..." for error messages.
std::string describe_devices(const std::vector<DeviceInfo>& devices);

}  // namespace wasmgpu::runtime
