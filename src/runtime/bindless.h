// Internal: the device-wide descriptor set of images and samplers
// (abi/image_abi.h). Created on first use: kernels without images never see
// it. Each Image and Sampler takes a slot (its handle) at creation, writes its
// descriptors there and its entry in the handle table, and gives the slot back
// when destroyed.
#pragma once

#include <volk.h>

#include <cstdint>
#include <vector>

#include "runtime/buffer.h"
#include "support/result.h"

namespace wasmgpu::runtime {

struct DeviceState;

struct BindlessSet {
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  // Set 0 = this set, and the kernel push constants (abi/launch_abi.h).
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  RawBuffer table;                   // the handle table, host-visible and coherent
  uint32_t capacity = 0;             // descriptors per array = handle table entries
  std::vector<uint32_t> free_slots;  // handles not in use (never 0)
};

// The device's set, created now if need be. Fails with "Vulkan device 'X'
// lacks descriptor indexing needed for images (...)" on devices without it.
Result<BindlessSet*> bindless_set(DeviceState& device);

// Takes a free handle; fails when all capacity - 1 are in use.
Result<uint32_t> allocate_handle(DeviceState& device, const char* what);

// Writes the handle table entry of `handle` (abi/image_abi.h).
void write_handle_entry(DeviceState& device, uint32_t handle, uint32_t width, uint32_t height, uint32_t depth,
                        uint32_t flags);

// Clears the entry (kernels then trap on the handle) and frees the handle.
// Descriptors stay as they are: partially bound arrays need no reset, and no
// kernel reaches a slot whose entry is clear.
void free_handle(DeviceState& device, uint32_t handle);

// Destroys the set; DeviceState's destructor calls it before the device goes.
void destroy_bindless(DeviceState& device);

}  // namespace wasmgpu::runtime
