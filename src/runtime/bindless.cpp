#include "runtime/bindless.h"

#include <algorithm>
#include <cstring>

#include "abi/image_abi.h"
#include "abi/launch_abi.h"
#include "runtime/device_state.h"

namespace wasmgpu::runtime {

namespace {

// The capacity the device's limits allow: two arrays of storage images and
// of sampled images (2D and 3D) share the per-stage limits.
uint32_t capacity_for(const DeviceState& device) {
  VkPhysicalDeviceVulkan12Properties p12{};
  p12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  VkPhysicalDeviceProperties2 p{};
  p.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p.pNext = &p12;
  vkGetPhysicalDeviceProperties2(device.physical_device, &p);
  uint32_t capacity = abi::kHandleCapacity;
  capacity = std::min(capacity, p12.maxPerStageDescriptorUpdateAfterBindStorageImages / 2);
  capacity = std::min(capacity, p12.maxPerStageDescriptorUpdateAfterBindSampledImages / 2);
  capacity = std::min(capacity, p12.maxPerStageDescriptorUpdateAfterBindSamplers);
  capacity = std::min(capacity, p12.maxDescriptorSetUpdateAfterBindStorageImages / 2);
  capacity = std::min(capacity, p12.maxDescriptorSetUpdateAfterBindSampledImages / 2);
  capacity = std::min(capacity, p12.maxDescriptorSetUpdateAfterBindSamplers);
  capacity = std::min(capacity, (p12.maxPerStageUpdateAfterBindResources - 1) / 5);
  return capacity;
}

Status create(DeviceState& device, BindlessSet& set) {
  auto& vk = device.vk;
  set.capacity = capacity_for(device);
  if (set.capacity < 2)
    return make_error(ErrorCode::Unsupported, "Vulkan device '" + device.info.name +
                                                  "' allows too few update-after-bind image descriptors for images");

  constexpr VkDescriptorType kTypes[abi::kImageBindingCount] = {
      VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
      VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, VK_DESCRIPTOR_TYPE_SAMPLER,       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
  VkDescriptorSetLayoutBinding bindings[abi::kImageBindingCount]{};
  VkDescriptorBindingFlags flags[abi::kImageBindingCount]{};
  for (uint32_t i = 0; i < abi::kImageBindingCount; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = kTypes[i];
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    const bool table = i == abi::kBindingHandleTable;
    bindings[i].descriptorCount = table ? 1 : set.capacity;
    // The handle table is written once, before any command buffer binds the set.
    flags[i] = table ? 0
                     : VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT | VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT |
                           VK_DESCRIPTOR_BINDING_UPDATE_UNUSED_WHILE_PENDING_BIT;
  }
  VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info{};
  flags_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO;
  flags_info.bindingCount = abi::kImageBindingCount;
  flags_info.pBindingFlags = flags;
  VkDescriptorSetLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  layout_info.pNext = &flags_info;
  layout_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
  layout_info.bindingCount = abi::kImageBindingCount;
  layout_info.pBindings = bindings;
  WASMGPU_TRY(device.check("vkCreateDescriptorSetLayout",
                           vk.vkCreateDescriptorSetLayout(device.device, &layout_info, nullptr, &set.set_layout)));

  const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2 * set.capacity},
                                        {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 2 * set.capacity},
                                        {VK_DESCRIPTOR_TYPE_SAMPLER, set.capacity},
                                        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}};
  VkDescriptorPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.flags = VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT;
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 4;
  pool_info.pPoolSizes = sizes;
  WASMGPU_TRY(
      device.check("vkCreateDescriptorPool", vk.vkCreateDescriptorPool(device.device, &pool_info, nullptr, &set.pool)));
  VkDescriptorSetAllocateInfo allocate_info{};
  allocate_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  allocate_info.descriptorPool = set.pool;
  allocate_info.descriptorSetCount = 1;
  allocate_info.pSetLayouts = &set.set_layout;
  WASMGPU_TRY(
      device.check("vkAllocateDescriptorSets", vk.vkAllocateDescriptorSets(device.device, &allocate_info, &set.set)));

  VkPushConstantRange push_range{VK_SHADER_STAGE_COMPUTE_BIT, 0, abi::kPushConstantsSize};
  VkPipelineLayoutCreateInfo pipeline_layout_info{};
  pipeline_layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pipeline_layout_info.setLayoutCount = 1;
  pipeline_layout_info.pSetLayouts = &set.set_layout;
  pipeline_layout_info.pushConstantRangeCount = 1;
  pipeline_layout_info.pPushConstantRanges = &push_range;
  WASMGPU_TRY(
      device.check("vkCreatePipelineLayout (images)",
                   vk.vkCreatePipelineLayout(device.device, &pipeline_layout_info, nullptr, &set.pipeline_layout)));

  const uint64_t table_bytes = uint64_t(abi::kHandleEntrySize) * set.capacity;
  WASMGPU_ASSIGN_OR_RETURN(set.table,
                           device.create_raw_buffer(table_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryKind::Host));
  std::memset(set.table.mapped, 0, table_bytes);  // every slot free
  VkDescriptorBufferInfo table_info{set.table.buffer, 0, table_bytes};
  VkWriteDescriptorSet write{};
  write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  write.dstSet = set.set;
  write.dstBinding = abi::kBindingHandleTable;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = &table_info;
  vk.vkUpdateDescriptorSets(device.device, 1, &write, 0, nullptr);

  // Lowest handles first: pop_back takes from the end.
  for (uint32_t slot = set.capacity - 1; slot >= 1; --slot) set.free_slots.push_back(slot);
  return {};
}

}  // namespace

Result<BindlessSet*> bindless_set(DeviceState& device) {
  if (device.bindless) return device.bindless.get();
  if (!device.images_enabled)
    return make_error(ErrorCode::Unsupported,
                      "Vulkan device '" + device.info.name +
                          "' lacks descriptor indexing needed for images (runtimeDescriptorArray, "
                          "partially bound and update-after-bind storage and sampled images, non-uniform "
                          "indexing of them, and storage images read and written without a format)");
  auto set = std::make_unique<BindlessSet>();
  device.bindless = std::move(set);
  if (Status status = create(device, *device.bindless); !status.ok()) {
    destroy_bindless(device);
    return status.take_error();
  }
  return device.bindless.get();
}

Result<uint32_t> allocate_handle(DeviceState& device, const char* what) {
  WASMGPU_ASSIGN_OR_RETURN(BindlessSet * set, bindless_set(device));
  if (set->free_slots.empty())
    return make_error(ErrorCode::Unsupported,
                      std::string("cannot create ") + what + ": all " + std::to_string(set->capacity - 1) +
                          " image and sampler handles of Vulkan device '" + device.info.name + "' are in use");
  uint32_t handle = set->free_slots.back();
  set->free_slots.pop_back();
  return handle;
}

void write_handle_entry(DeviceState& device, uint32_t handle, uint32_t width, uint32_t height, uint32_t depth,
                        uint32_t flags) {
  const uint32_t entry[4] = {width, height, depth, flags};
  static_assert(sizeof entry == abi::kHandleEntrySize);
  std::memcpy(static_cast<uint8_t*>(device.bindless->table.mapped) + uint64_t(handle) * abi::kHandleEntrySize, entry,
              sizeof entry);
}

void free_handle(DeviceState& device, uint32_t handle) {
  if (!device.bindless) return;
  write_handle_entry(device, handle, 0, 0, 0, 0);
  device.bindless->free_slots.push_back(handle);
}

void destroy_bindless(DeviceState& device) {
  if (!device.bindless) return;
  BindlessSet& set = *device.bindless;
  auto& vk = device.vk;
  if (set.pipeline_layout) vk.vkDestroyPipelineLayout(device.device, set.pipeline_layout, nullptr);
  if (set.pool) vk.vkDestroyDescriptorPool(device.device, set.pool, nullptr);
  if (set.set_layout) vk.vkDestroyDescriptorSetLayout(device.device, set.set_layout, nullptr);
  device.destroy_raw_buffer(set.table);
  device.bindless.reset();
}

}  // namespace wasmgpu::runtime
