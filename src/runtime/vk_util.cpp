#include "runtime/vk_util.h"

#include "support/units.h"

#include <cstdio>

namespace wasmgpu::runtime {

std::string vk_result_name(VkResult result) {
  switch (result) {
#define WASMGPU_VK_RESULT(name) \
  case name: return #name;
    WASMGPU_VK_RESULT(VK_SUCCESS)
    WASMGPU_VK_RESULT(VK_NOT_READY)
    WASMGPU_VK_RESULT(VK_TIMEOUT)
    WASMGPU_VK_RESULT(VK_EVENT_SET)
    WASMGPU_VK_RESULT(VK_EVENT_RESET)
    WASMGPU_VK_RESULT(VK_INCOMPLETE)
    WASMGPU_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    WASMGPU_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    WASMGPU_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    WASMGPU_VK_RESULT(VK_ERROR_DEVICE_LOST)
    WASMGPU_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    WASMGPU_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    WASMGPU_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    WASMGPU_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    WASMGPU_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    WASMGPU_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    WASMGPU_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    WASMGPU_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    WASMGPU_VK_RESULT(VK_ERROR_UNKNOWN)
    WASMGPU_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    WASMGPU_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    WASMGPU_VK_RESULT(VK_ERROR_FRAGMENTATION)
    WASMGPU_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    WASMGPU_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    WASMGPU_VK_RESULT(VK_ERROR_VALIDATION_FAILED_EXT)
    WASMGPU_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef WASMGPU_VK_RESULT
    default: break;
  }
  return "VkResult(" + std::to_string(static_cast<int>(result)) + ")";
}

Error vk_error(std::string_view what, VkResult result) {
  Error error = make_error(result == VK_ERROR_DEVICE_LOST ? ErrorCode::DeviceLost : ErrorCode::Vulkan,
                           std::string(what) + " failed: " + vk_result_name(result));
  error.vk_result = int32_t(result);
  return error;
}

std::string format_bytes(uint64_t bytes) { return wasmgpu::format_bytes(bytes); }

std::string format_api_version(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

}  // namespace wasmgpu::runtime
