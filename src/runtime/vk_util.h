// Internal helpers for turning VkResult codes into Errors. Not part of the
// public API.
#pragma once

#include <volk.h>

#include <string>
#include <string_view>

#include "support/result.h"

namespace wasmgpu::runtime {

// "VK_ERROR_DEVICE_LOST", or "VkResult(-42)" for codes this build does not name.
std::string vk_result_name(VkResult result);

// "<what> failed: VK_ERROR_..." -- keeps the raw code in the message and in
// `vk_result`; the code is DeviceLost for VK_ERROR_DEVICE_LOST, else Vulkan.
Error vk_error(std::string_view what, VkResult result);

// Human-readable byte count: "96 KiB", "3.5 GiB", "17 bytes".
std::string format_bytes(uint64_t bytes);

// "1.3.239" from a packed Vulkan version.
std::string format_api_version(uint32_t version);

inline uint64_t round_up(uint64_t value, uint64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

}  // namespace wasmgpu::runtime

namespace wasmgpu::runtime {
struct DeviceInfo;
// Reads properties, limits and features of a physical device (instance
// functions must be loaded).
DeviceInfo read_device_info(VkPhysicalDevice physical_device, uint32_t index);
}  // namespace wasmgpu::runtime
