#include "runtime/device.h"

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <tuple>

#include "abi/launch_abi.h"
#include "runtime/bindless.h"
#include "runtime/device_state.h"
#include "runtime/instance_state.h"
#include "runtime/pipeline_statistics.h"
#include "runtime/pipeline_warmup.h"
#include "runtime/vk_util.h"
#include "support/environment.h"

namespace wasmgpu::runtime {

namespace {

uint64_t timeout_ns(std::chrono::nanoseconds timeout) { return timeout.count() < 0 ? 0 : uint64_t(timeout.count()); }

bool has_device_extension(VkPhysicalDevice physical_device, std::string_view name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, extensions.data());
  for (const VkExtensionProperties& e : extensions)
    if (name == e.extensionName) return true;
  return false;
}

// Picks the queue family for compute: a compute-only one when there is one
// (it may run alongside graphics work), else any with compute.
std::optional<uint32_t> find_compute_queue_family(VkPhysicalDevice physical_device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, families.data());
  std::optional<uint32_t> any;
  for (uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || families[i].queueCount == 0) continue;
    if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return i;
    if (!any) any = i;
  }
  return any;
}

}  // namespace

// ---------------------------------------------------------------- DeviceState

DeviceState::~DeviceState() {
  if (!device) return;
  vk.vkDeviceWaitIdle(device);  // also after a loss: returns at once
  pending.clear();
  for (auto& destroy : deferred) destroy();
  deferred.clear();
  destroy_raw_buffer(staging);
  if (launch_arena) ++live_children;  // Kernel::launch uncounted it (the device's own)
  launch_arena.reset();               // both free their memory at once: nothing is pending
  stacks.reset();
  destroy_bindless(*this);
  if (warmup_fence) vk.vkDestroyFence(device, warmup_fence, nullptr);
  if (warmup_pool) vk.vkDestroyCommandPool(device, warmup_pool, nullptr);
  pipeline_cache.destroy();  // saves it first
  if (pipeline_layout) vk.vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
  if (fence) vk.vkDestroyFence(device, fence, nullptr);
  if (command_pool) vk.vkDestroyCommandPool(device, command_pool, nullptr);
  vk.vkDestroyDevice(device, nullptr);
}

Error DeviceState::fail(std::string_view what, VkResult result) {
  Error error = vk_error(what, result);
  if (result == VK_ERROR_DEVICE_LOST && !lost) {
    lost = true;
    lost_reason = error.message;
  }
  return error;
}

Status DeviceState::ready() {
  if (lost) {
    Error error = make_error(ErrorCode::DeviceLost,
                             "Vulkan device '" + info.name + "' is lost (" + lost_reason + "); create a new Device");
    error.vk_result = int32_t(VK_ERROR_DEVICE_LOST);
    return error;
  }
  if (pending.empty()) return {};
  VkResult status = vk.vkGetFenceStatus(device, pending_fence);
  if (status == VK_SUCCESS) {
    finish_pending();
    return {};
  }
  if (status == VK_NOT_READY)
    return make_error(ErrorCode::Timeout, "Vulkan device '" + info.name + "' is busy: " + pending +
                                              " timed out and is still running; Device::wait() waits for it");
  return fail("vkGetFenceStatus", status);
}

void DeviceState::finish_pending() {
  pending.clear();
  vk.vkResetFences(device, 1, &pending_fence);
  // A warm-up's pool is reset by the next warm-up.
  if (pending_fence == fence) vk.vkResetCommandPool(device, command_pool, 0);
  pending_fence = VK_NULL_HANDLE;
  auto work = std::move(deferred);
  deferred.clear();
  for (auto& destroy : work) destroy();
}

Status DeviceState::wait_pending(std::chrono::nanoseconds timeout) {
  if (lost) return ready();
  if (pending.empty()) return {};
  VkResult r = vk.vkWaitForFences(device, 1, &pending_fence, VK_TRUE, timeout_ns(timeout));
  if (r == VK_TIMEOUT)
    return make_error(ErrorCode::Timeout, pending + " is still running on Vulkan device '" + info.name + "'");
  if (r != VK_SUCCESS) return fail("vkWaitForFences", r);
  finish_pending();
  return {};
}

void DeviceState::destroy_later(std::function<void()> destroy) {
  if (pending.empty())
    destroy();
  else
    deferred.push_back(std::move(destroy));
}

Status DeviceState::create_submission_objects(VkCommandPool& pool, VkCommandBuffer& command_buffer, VkFence& fence) {
  if (!pool) {
    VkCommandPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pool_info.queueFamilyIndex = queue_family;
    WASMGPU_TRY(check("vkCreateCommandPool", vk.vkCreateCommandPool(device, &pool_info, nullptr, &pool)));
  }
  if (!command_buffer) {
    VkCommandBufferAllocateInfo cmd_info{};
    cmd_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cmd_info.commandPool = pool;
    cmd_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cmd_info.commandBufferCount = 1;
    WASMGPU_TRY(check("vkAllocateCommandBuffers", vk.vkAllocateCommandBuffers(device, &cmd_info, &command_buffer)));
  }
  if (!fence) {
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    WASMGPU_TRY(check("vkCreateFence", vk.vkCreateFence(device, &fence_info, nullptr, &fence)));
  }
  return {};
}

Result<VkCommandBuffer> DeviceState::begin() {
  WASMGPU_TRY(ready());
  VkCommandBufferBeginInfo begin_info{};
  begin_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  WASMGPU_TRY(check("vkBeginCommandBuffer", vk.vkBeginCommandBuffer(command_buffer, &begin_info)));
  return command_buffer;
}

Status DeviceState::submit_and_wait(std::string_view description, std::chrono::nanoseconds timeout) {
  if (VkResult r = vk.vkEndCommandBuffer(command_buffer); r != VK_SUCCESS) {
    vk.vkResetCommandPool(device, command_pool, 0);
    return fail("vkEndCommandBuffer", r);
  }
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer;
  if (VkResult r = vk.vkQueueSubmit(queue, 1, &submit, fence); r != VK_SUCCESS) {
    vk.vkResetCommandPool(device, command_pool, 0);
    return fail("vkQueueSubmit", r);
  }
  VkResult r = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, timeout_ns(timeout));
  if (r == VK_TIMEOUT) {
    pending = std::string(description);
    pending_fence = fence;
    // Only launches wait with a timeout; their pipelines were compiled before
    // (pipeline_warmup.h), so the time is the kernel's own.
    return make_error(ErrorCode::Timeout,
                      std::string(description) + " did not finish: the kernel ran longer than " +
                          format_seconds(timeout) +
                          ", the launch timeout (VK_TIMEOUT); it keeps running and the device accepts new work "
                          "once it finishes (Device::wait)");
  }
  if (r != VK_SUCCESS) {
    pending = std::string(description);
    pending_fence = fence;
    return fail("vkWaitForFences", r);
  }
  vk.vkResetFences(device, 1, &fence);
  vk.vkResetCommandPool(device, command_pool, 0);
  return {};
}

std::optional<uint32_t> DeviceState::find_memory_type(uint32_t type_bits, MemoryKind kind) const {
  constexpr VkMemoryPropertyFlags kHostFlags =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::optional<uint32_t> best;
  auto score = [&](uint32_t i) {
    const VkMemoryType& type = memory_properties.memoryTypes[i];
    const VkDeviceSize heap = memory_properties.memoryHeaps[type.heapIndex].size;
    const bool host = (type.propertyFlags & kHostFlags) == kHostFlags;
    const bool local = type.propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    // Device: the largest device-local heap (not a small BAR window), and
    // host-visible within it when possible. Host: host-visible and coherent,
    // device-local when possible (resizable BAR, unified memory).
    if (kind == MemoryKind::Device) return std::tuple<int, VkDeviceSize, int>(local, heap, host);
    if (kind == MemoryKind::HostCached)
      return std::tuple<int, VkDeviceSize, int>(bool(type.propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT), !local,
                                                heap);
    return std::tuple<int, VkDeviceSize, int>(host, local, heap);
  };
  for (uint32_t i = 0; i < memory_properties.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    const VkMemoryPropertyFlags flags = memory_properties.memoryTypes[i].propertyFlags;
    if (flags & (VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT)) continue;
    if (kind != MemoryKind::Device && (flags & kHostFlags) != kHostFlags) continue;
    if (!best || score(i) > score(*best)) best = i;
  }
  return best;
}

Result<RawBuffer> DeviceState::create_raw_buffer(uint64_t size, VkBufferUsageFlags usage, MemoryKind kind) {
  RawBuffer raw;
  raw.size = size;
  VkBufferCreateInfo buffer_info{};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = size;
  buffer_info.usage = usage;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vk.vkCreateBuffer(device, &buffer_info, nullptr, &raw.buffer); r != VK_SUCCESS)
    return fail("vkCreateBuffer (" + format_bytes(size) + ")", r);

  VkMemoryRequirements requirements{};
  vk.vkGetBufferMemoryRequirements(device, raw.buffer, &requirements);
  std::optional<uint32_t> type = find_memory_type(requirements.memoryTypeBits, kind);
  if (!type) {
    destroy_raw_buffer(raw);
    return make_error(ErrorCode::Unsupported, "no suitable Vulkan memory type for a " + format_bytes(size) + " buffer");
  }
  VkMemoryAllocateFlagsInfo flags_info{};
  flags_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  flags_info.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryDedicatedAllocateInfo dedicated{};
  dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated.pNext = (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) ? &flags_info : nullptr;
  dedicated.buffer = raw.buffer;
  VkMemoryAllocateInfo allocate_info{};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.pNext = &dedicated;
  allocate_info.allocationSize = requirements.size;
  allocate_info.memoryTypeIndex = *type;
  if (VkResult r = vk.vkAllocateMemory(device, &allocate_info, nullptr, &raw.memory); r != VK_SUCCESS) {
    raw.memory = VK_NULL_HANDLE;
    destroy_raw_buffer(raw);
    return fail("vkAllocateMemory (" + format_bytes(requirements.size) + ")", r);
  }
  if (VkResult r = vk.vkBindBufferMemory(device, raw.buffer, raw.memory, 0); r != VK_SUCCESS) {
    destroy_raw_buffer(raw);
    return fail("vkBindBufferMemory", r);
  }
  const VkMemoryPropertyFlags flags = memory_properties.memoryTypes[*type].propertyFlags;
  const bool may_map = kind != MemoryKind::Device || map_device_buffers;
  if (may_map && (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
    if (VkResult r = vk.vkMapMemory(device, raw.memory, 0, VK_WHOLE_SIZE, 0, &raw.mapped); r != VK_SUCCESS) {
      raw.mapped = nullptr;
      if (kind != MemoryKind::Device) {
        destroy_raw_buffer(raw);
        return fail("vkMapMemory", r);
      }
    }
  }
  if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) {
    VkBufferDeviceAddressInfo address_info{};
    address_info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    address_info.buffer = raw.buffer;
    raw.address = vk.vkGetBufferDeviceAddress(device, &address_info);
  }
  return raw;
}

void DeviceState::destroy_raw_buffer(RawBuffer& raw) {
  if (raw.buffer) vk.vkDestroyBuffer(device, raw.buffer, nullptr);
  if (raw.memory) vk.vkFreeMemory(device, raw.memory, nullptr);  // unmaps implicitly
  raw = RawBuffer{};
}

Status DeviceState::ensure_raw_buffer(RawBuffer& raw, uint64_t size, VkBufferUsageFlags usage, MemoryKind kind) {
  if (raw.buffer && raw.size >= size) return {};
  RawBuffer old = raw;
  raw = RawBuffer{};
  destroy_later([this, old]() mutable { destroy_raw_buffer(old); });
  WASMGPU_ASSIGN_OR_RETURN(raw, create_raw_buffer(size, usage, kind));
  return {};
}

void memory_barrier(DeviceState& device, VkCommandBuffer cmd, VkPipelineStageFlags src_stages, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stages, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  device.vk.vkCmdPipelineBarrier(cmd, src_stages, dst_stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// --------------------------------------------------------------------- Device

Result<Device> Device::create(Instance& instance, const DeviceOptions& options) {
  InstanceState& instance_state = instance.state();
  const std::vector<DeviceInfo>& devices = instance_state.devices;
  uint32_t index = 0;
  if (options.index) {
    if (*options.index >= devices.size())
      return make_error(ErrorCode::NotFound, "no Vulkan device with index " + std::to_string(*options.index) + "; " +
                                                 describe_devices(devices));
    const DeviceInfo& chosen = devices[*options.index];
    if (!chosen.usable())
      return make_error(ErrorCode::Unsupported, "Vulkan device " + std::to_string(chosen.index) + " " + chosen.name +
                                                    " cannot run wasmgpu kernels: " + chosen.unusable_reason);
    index = *options.index;
  } else {
    std::optional<std::string> spec = options.name;
    if (!spec && options.use_environment) spec = environment::device();
    WASMGPU_ASSIGN_OR_RETURN(index, choose_device(devices, spec));
  }

  auto state = std::make_unique<DeviceState>();
  state->instance = &instance_state;
  state->info = devices[index];
  state->physical_device = instance_state.physical_devices[index];
  vkGetPhysicalDeviceMemoryProperties(state->physical_device, &state->memory_properties);
  const DeviceInfo& info = state->info;

  std::optional<uint32_t> family = find_compute_queue_family(state->physical_device);
  if (!family) return make_error(ErrorCode::Unsupported, "Vulkan device '" + info.name + "' has no compute queue");
  state->queue_family = *family;

  // Query the optional features kernels may rely on and enable those present.
  VkPhysicalDeviceVulkan11Features have11{};
  have11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  VkPhysicalDeviceVulkan12Features have12{};
  have12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  have12.pNext = &have11;
  VkPhysicalDeviceFeatures2 have{};
  have.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  have.pNext = &have12;
  vkGetPhysicalDeviceFeatures2(state->physical_device, &have);

  VkPhysicalDeviceVulkan11Features want11{};
  want11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  want11.storageBuffer16BitAccess = have11.storageBuffer16BitAccess;
  VkPhysicalDeviceVulkan12Features want12{};
  want12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  want12.pNext = &want11;
  want12.bufferDeviceAddress = VK_TRUE;
  want12.shaderInt8 = VK_TRUE;
  want12.storageBuffer8BitAccess = VK_TRUE;
  want12.timelineSemaphore = have12.timelineSemaphore;
  want12.scalarBlockLayout = have12.scalarBlockLayout;
  want12.vulkanMemoryModel = have12.vulkanMemoryModel;
  want12.vulkanMemoryModelDeviceScope = have12.vulkanMemoryModelDeviceScope;
  want12.shaderBufferInt64Atomics = have12.shaderBufferInt64Atomics;
  want12.shaderSubgroupExtendedTypes = have12.shaderSubgroupExtendedTypes;
  want12.subgroupBroadcastDynamicId = have12.subgroupBroadcastDynamicId;
  // Images and samplers (bindless.h); enabling them changes nothing for
  // kernels that do not use images.
  state->images_enabled = info.features.images;
  if (state->images_enabled) {
    want12.descriptorIndexing = have12.descriptorIndexing;
    want12.runtimeDescriptorArray = VK_TRUE;
    want12.descriptorBindingPartiallyBound = VK_TRUE;
    want12.descriptorBindingStorageImageUpdateAfterBind = VK_TRUE;
    want12.descriptorBindingSampledImageUpdateAfterBind = VK_TRUE;
    want12.descriptorBindingUpdateUnusedWhilePending = VK_TRUE;
    want12.shaderStorageImageArrayNonUniformIndexing = VK_TRUE;
    want12.shaderSampledImageArrayNonUniformIndexing = VK_TRUE;
  }
  VkPhysicalDeviceFeatures2 want{};
  want.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  want.pNext = &want12;
  // Driver statistics of compiled pipelines, only when asked for.
  std::vector<const char*> extensions;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR want_statistics{};
  want_statistics.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  if (pipeline_statistics_requested() &&
      has_device_extension(state->physical_device, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    want_statistics.pipelineExecutableInfo = VK_TRUE;
    want_statistics.pNext = want.pNext;
    want.pNext = &want_statistics;
    state->pipeline_statistics = true;
  }
  want.features.shaderInt64 = VK_TRUE;
  want.features.shaderInt16 = have.features.shaderInt16;
  want.features.shaderStorageImageReadWithoutFormat = state->images_enabled;
  want.features.shaderStorageImageWriteWithoutFormat = state->images_enabled;
  // DeviceInfo may hide float64 (WASMGPU_HIDE_FEATURES), so that the path for
  // devices without it is tested on devices that have it.
  state->float64_enabled = have.features.shaderFloat64 && info.features.shader_float64;
  want.features.shaderFloat64 = state->float64_enabled;
  state->map_device_buffers = options.map_host_visible_buffers;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = state->queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &want;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = uint32_t(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vkCreateDevice(state->physical_device, &device_info, nullptr, &state->device); r != VK_SUCCESS) {
    state->device = VK_NULL_HANDLE;
    Error error = vk_error("vkCreateDevice", r);
    error.message += " (device " + std::to_string(info.index) + " " + info.name + ")";
    return error;
  }
  volkLoadDeviceTable(&state->vk, state->device);
  DeviceState& s = *state;
  s.vk.vkGetDeviceQueue(s.device, s.queue_family, 0, &s.queue);

  WASMGPU_TRY(s.create_submission_objects(s.command_pool, s.command_buffer, s.fence));

  if (Result<std::shared_ptr<DiskCache>> cache = DiskCache::open(options.cache); cache.ok()) {
    s.disk_cache = std::move(cache).value();
    s.cache_stats.directory = s.disk_cache->directory().string();
  } else {
    s.cache_stats.disabled_reason = cache.error().message;
  }
  s.compile_cache.set_disk(s.disk_cache);
  WASMGPU_TRY(s.pipeline_cache.create(s.device, s.vk, s.info, s.disk_cache, s.cache_stats));
  s.pipeline_feedback = info.api_version >= VK_API_VERSION_1_3 && instance_state.api_version >= VK_API_VERSION_1_3;
  s.cache_stats.pipeline_feedback = s.pipeline_feedback;
  s.warm_up_pipelines = pipeline_warmup_wanted(s.info);

  VkPushConstantRange push_range{};
  push_range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push_range.offset = 0;
  push_range.size = abi::kPushConstantsSize;
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push_range;
  WASMGPU_TRY(s.check("vkCreatePipelineLayout",
                      s.vk.vkCreatePipelineLayout(s.device, &layout_info, nullptr, &s.pipeline_layout)));
  return Device(std::move(state));
}

Device::Device(std::unique_ptr<DeviceState> state) : state_(std::move(state)) {}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&& other) noexcept {
  if (this != &other) {
    Device doomed(std::move(*this));
    state_ = std::move(other.state_);
  }
  return *this;
}

Device::~Device() {
  if (!state_) return;
  if (state_->live_children != 0) {
    std::fprintf(stderr, "wasmgpu: Device '%s' destroyed while %zu of its buffers/kernels are alive\n",
                 state_->info.name.c_str(), state_->live_children);
    assert(false && "destroy Buffers, Modules and Kernels before their Device");
  }
}

const DeviceInfo& Device::info() const { return state_->info; }
bool Device::float64_enabled() const { return state_->float64_enabled; }
bool Device::lost() const { return state_->lost; }
VkDevice Device::handle() const { return state_->device; }
VkPhysicalDevice Device::physical_device() const { return state_->physical_device; }
uint64_t Device::mapped_address_bytes() const { return state_->addresses.reserved_bytes(); }
size_t Device::mapped_buffer_count() const { return state_->mapped.size(); }

Result<Buffer> Device::create_buffer(uint64_t size) {
  return runtime::create_buffer(*state_, size, /*assign_wasm_address=*/true);
}

const CacheStats& Device::cache_stats() const { return state_->cache_stats; }
void Device::save_caches() { state_->pipeline_cache.save(); }

Status Device::wait(std::chrono::nanoseconds timeout) { return state_->wait_pending(timeout); }

std::vector<std::string> Device::validation_messages() const {
  std::lock_guard lock(state_->instance->messages_mutex);
  return state_->instance->messages;
}

}  // namespace wasmgpu::runtime
