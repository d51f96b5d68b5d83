#include "runtime/device_info.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "runtime/vk_util.h"
#include "support/environment.h"

namespace wasmgpu::runtime {

const char* to_string(DeviceType type) {
  switch (type) {
    case DeviceType::Other: return "other";
    case DeviceType::IntegratedGpu: return "integrated GPU";
    case DeviceType::DiscreteGpu: return "discrete GPU";
    case DeviceType::VirtualGpu: return "virtual GPU";
    case DeviceType::Cpu: return "CPU";
  }
  return "other";
}

std::string DeviceInfo::summary() const {
  std::string text =
      std::to_string(index) + " " + name + " (" + to_string(type) + ", Vulkan " + format_api_version(api_version);
  if (!driver_name.empty()) text += ", " + driver_name;
  text += ")";
  if (!usable()) text += " [unusable: " + unusable_reason + "]";
  return text;
}

// WASMGPU_HIDE_FEATURES=float64,int64,images,subgroup_vote,float_controls makes a device look
// as if it lacked shaderFloat64 / shaderInt64 / ... (float_controls: every
// float control), so the paths for such devices run (and are tested) on any
// device.
static void hide_features_from_environment(DeviceFeatures& features) {
  for (const std::string& name : environment::hidden_features()) {
    if (name == "float64") features.shader_float64 = false;
    if (name == "int64") features.shader_int64 = false;
    if (name == "images") features.images = false;
    if (name == "subgroup_vote") features.subgroup_vote = false;
    if (name == "float_controls") {
      features.rounding_rte_f32 = features.rounding_rte_f64 = false;
      features.preserve_specials_f32 = features.preserve_specials_f64 = false;
      features.denorm_preserve_f64 = false;
    }
  }
}

Status check_usable(uint32_t api_version, const DeviceFeatures& features) {
  if (api_version < VK_API_VERSION_1_2)
    return make_error(ErrorCode::Unsupported,
                      "Vulkan " + format_api_version(api_version) + " (wasmgpu needs Vulkan 1.2)");
  std::string missing;
  auto require = [&](bool present, const char* name) {
    if (present) return;
    if (!missing.empty()) missing += ", ";
    missing += name;
  };
  require(features.buffer_device_address, "bufferDeviceAddress");
  require(features.shader_int64, "shaderInt64");
  require(features.shader_int8, "shaderInt8");
  require(features.storage_buffer_8bit_access, "storageBuffer8BitAccess");
  if (missing.empty()) return {};
  return make_error(ErrorCode::Unsupported, "missing required features: " + missing);
}

std::string describe_devices(const std::vector<DeviceInfo>& devices) {
  if (devices.empty()) return "no Vulkan devices";
  std::string text = "devices: ";
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i) text += "; ";
    text += devices[i].summary();
  }
  return text;
}

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int preference_rank(DeviceType type) {
  switch (type) {
    case DeviceType::DiscreteGpu: return 0;
    case DeviceType::IntegratedGpu: return 1;
    case DeviceType::VirtualGpu: return 2;
    case DeviceType::Cpu: return 3;
    case DeviceType::Other: return 4;
  }
  return 4;
}

}  // namespace

Result<uint32_t> choose_device(const std::vector<DeviceInfo>& devices, std::optional<std::string_view> spec) {
  if (devices.empty())
    return make_error(ErrorCode::Unsupported, "no Vulkan devices found (is a Vulkan driver (ICD) installed?)");
  if (spec) {
    const DeviceInfo* match = nullptr;
    uint32_t index = 0;
    const char* end = spec->data() + spec->size();
    auto [ptr, ec] = std::from_chars(spec->data(), end, index);
    if (!spec->empty() && ec == std::errc() && ptr == end) {
      if (index < devices.size()) match = &devices[index];
    } else if (!spec->empty()) {
      std::string needle = lower(*spec);
      for (const DeviceInfo& device : devices)
        if (lower(device.name).find(needle) != std::string::npos) {
          match = &device;
          break;
        }
    }
    if (!match)
      return make_error(ErrorCode::NotFound, "no Vulkan device matches WASMGPU_DEVICE=" + std::string(*spec) + "; " +
                                                 describe_devices(devices));
    if (!match->usable())
      return make_error(ErrorCode::Unsupported, "Vulkan device " + std::to_string(match->index) + " " + match->name +
                                                    " (chosen by WASMGPU_DEVICE=" + std::string(*spec) +
                                                    ") cannot run wasmgpu kernels: " + match->unusable_reason);
    return match->index;
  }
  const DeviceInfo* best = nullptr;
  for (const DeviceInfo& device : devices) {
    if (!device.usable()) continue;
    if (!best || preference_rank(device.type) < preference_rank(best->type)) best = &device;
  }
  if (!best)
    return make_error(ErrorCode::Unsupported, "no Vulkan device can run wasmgpu kernels; " + describe_devices(devices));
  return best->index;
}

DeviceInfo read_device_info(VkPhysicalDevice physical_device, uint32_t index) {
  DeviceInfo info;
  info.index = index;

  VkPhysicalDeviceProperties basic{};
  vkGetPhysicalDeviceProperties(physical_device, &basic);
  info.api_version = basic.apiVersion;
  const bool vulkan12 = basic.apiVersion >= VK_API_VERSION_1_2;
  const bool vulkan13 = basic.apiVersion >= VK_API_VERSION_1_3;

  VkPhysicalDeviceMaintenance4Properties maintenance4{};
  maintenance4.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES;
  VkPhysicalDeviceDriverProperties driver{};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  driver.pNext = vulkan13 ? &maintenance4 : nullptr;
  VkPhysicalDeviceFloatControlsProperties float_controls{};
  float_controls.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  float_controls.pNext = &driver;
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  subgroup.pNext = vulkan12 ? &float_controls : nullptr;
  VkPhysicalDeviceProperties2 properties{};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &subgroup;
  if (basic.apiVersion >= VK_API_VERSION_1_1) {
    vkGetPhysicalDeviceProperties2(physical_device, &properties);
  } else {
    properties.properties = basic;
  }
  const VkPhysicalDeviceProperties& p = properties.properties;
  info.name = p.deviceName;
  info.vendor_id = p.vendorID;
  info.device_id = p.deviceID;
  info.driver_version = p.driverVersion;
  std::memcpy(info.pipeline_cache_uuid.data(), p.pipelineCacheUUID, VK_UUID_SIZE);
  switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: info.type = DeviceType::IntegratedGpu; break;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: info.type = DeviceType::DiscreteGpu; break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: info.type = DeviceType::VirtualGpu; break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: info.type = DeviceType::Cpu; break;
    default: info.type = DeviceType::Other; break;
  }
  if (vulkan12) {
    info.driver_name = driver.driverName;
    info.driver_info = driver.driverInfo;
    info.driver_id = uint32_t(driver.driverID);
  }
  DeviceLimits& limits = info.limits;
  for (int i = 0; i < 3; ++i) {
    limits.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
    limits.max_workgroup_size[i] = p.limits.maxComputeWorkGroupSize[i];
  }
  limits.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  limits.max_shared_memory_bytes = p.limits.maxComputeSharedMemorySize;
  limits.subgroup_size = basic.apiVersion >= VK_API_VERSION_1_1 ? subgroup.subgroupSize : 1;
  info.features.subgroup_vote = basic.apiVersion >= VK_API_VERSION_1_1 &&
                                (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_VOTE_BIT) &&
                                (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
  limits.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  limits.max_push_constants_size = p.limits.maxPushConstantsSize;
  limits.max_buffer_size = vulkan13 ? maintenance4.maxBufferSize : 0;

  if (basic.apiVersion >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceMaintenance3Properties maintenance3{};
    maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    VkPhysicalDeviceProperties2 more{};
    more.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    more.pNext = &maintenance3;
    vkGetPhysicalDeviceProperties2(physical_device, &more);
    limits.max_memory_allocation_size = maintenance3.maxMemoryAllocationSize;
  }

  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(physical_device, &memory);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i)
    if (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.device_local_memory_bytes += memory.memoryHeaps[i].size;

  DeviceFeatures& features = info.features;
  if (vulkan12) {
    features.rounding_rte_f32 = float_controls.shaderRoundingModeRTEFloat32;
    features.rounding_rte_f64 = float_controls.shaderRoundingModeRTEFloat64;
    features.preserve_specials_f32 = float_controls.shaderSignedZeroInfNanPreserveFloat32;
    features.preserve_specials_f64 = float_controls.shaderSignedZeroInfNanPreserveFloat64;
    features.denorm_preserve_f64 = float_controls.shaderDenormPreserveFloat64;
  }
  if (vulkan12) {
    VkPhysicalDeviceVulkan12Features features12{};
    features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    VkPhysicalDeviceFeatures2 features2{};
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = &features12;
    vkGetPhysicalDeviceFeatures2(physical_device, &features2);
    features.shader_int64 = features2.features.shaderInt64;
    features.shader_float64 = features2.features.shaderFloat64;
    features.shader_int8 = features12.shaderInt8;
    features.storage_buffer_8bit_access = features12.storageBuffer8BitAccess;
    features.buffer_device_address = features12.bufferDeviceAddress;
    features.timeline_semaphore = features12.timelineSemaphore;
    features.descriptor_indexing = features12.runtimeDescriptorArray &&
                                   features12.shaderStorageBufferArrayNonUniformIndexing &&
                                   features12.descriptorBindingPartiallyBound;
    features.images = features12.runtimeDescriptorArray && features12.descriptorBindingPartiallyBound &&
                      features12.descriptorBindingStorageImageUpdateAfterBind &&
                      features12.descriptorBindingSampledImageUpdateAfterBind &&
                      features12.descriptorBindingUpdateUnusedWhilePending &&
                      features12.shaderStorageImageArrayNonUniformIndexing &&
                      features12.shaderSampledImageArrayNonUniformIndexing &&
                      features2.features.shaderStorageImageReadWithoutFormat &&
                      features2.features.shaderStorageImageWriteWithoutFormat;
  } else {
    VkPhysicalDeviceFeatures core{};
    vkGetPhysicalDeviceFeatures(physical_device, &core);
    features.shader_int64 = core.shaderInt64;
    features.shader_float64 = core.shaderFloat64;
  }
  hide_features_from_environment(features);
  if (Status usable = check_usable(info.api_version, features); !usable.ok())
    info.unusable_reason = usable.error().message;
  return info;
}

}  // namespace wasmgpu::runtime
