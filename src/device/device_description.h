// What a device is, as the API reports it (DeviceInfo) and chooses by.
#pragma once

#include <cstdint>
#include <string>

namespace wasmgpu::device {

struct DeviceDescription {
  uint32_t index = 0;  // position in the platform's device list
  std::string name;
  std::string type;         // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  std::string driver;       // driver name and version info
  std::string api_version;  // "1.3.289"
  uint32_t vendor_id = 0, device_id = 0;
  bool float64 = false;  // f64 kernels can run (once opened: enabled)
  uint64_t max_buffer_bytes = 0;
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_workgroup_size_x = 0;  // maxComputeWorkGroupSize[0]; 0: not reported
  uint64_t device_local_memory_bytes = 0;
  uint32_t max_workgroup_count_x = 0;
  uint32_t max_shared_memory_bytes = 0;
  uint32_t subgroup_size = 0;
  uint64_t max_storage_buffer_range = 0;
  uint64_t max_allocation_bytes = 0;
  bool int64 = false;
  bool descriptor_indexing = false;
  // Empty when kernels can run on it; otherwise why not.
  std::string unusable_reason;
  // For messages: "0 'llvmpipe (...)' (CPU, driver ...)".
  std::string summary;
  bool usable() const { return unusable_reason.empty(); }
};

}  // namespace wasmgpu::device
