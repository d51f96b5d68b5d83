// Internal: what an Instance shares with the Devices created from it.
#pragma once

#include <volk.h>

#include <mutex>
#include <string>
#include <vector>

#include "runtime/device_info.h"

namespace wasmgpu::runtime {

struct InstanceState {
  VkInstance instance = VK_NULL_HANDLE;  // the process's, shared and never destroyed (instance.cpp)
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  bool validation = false;
  uint32_t api_version = 0;  // VkApplicationInfo::apiVersion the instance was created with
  bool print_messages = true;
  std::vector<VkPhysicalDevice> physical_devices;
  std::vector<DeviceInfo> devices;

  mutable std::mutex messages_mutex;
  std::vector<std::string> messages;

  void add_message(std::string message);
  ~InstanceState();
};

}  // namespace wasmgpu::runtime
