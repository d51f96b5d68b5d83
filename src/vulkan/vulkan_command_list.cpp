// Recording, submitting and waiting for a Vulkan command buffer.
#include "vulkan/vulkan_command_list.h"

#include <vector>

#include "runtime/recorded_launch.h"
#include "runtime/vk_util.h"
#include "vulkan/vulkan_buffer.h"

namespace wasmgpu::vulkan {

namespace {

uint64_t timeout_ns(std::chrono::nanoseconds timeout) { return timeout.count() < 0 ? 0 : uint64_t(timeout.count()); }

constexpr VkPipelineStageFlags kWorkStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

VkBuffer handle_of(device::BackendBuffer& buffer) { return static_cast<VulkanBuffer&>(buffer).buffer().handle(); }

}  // namespace

Result<std::unique_ptr<VulkanCommandList>> VulkanCommandList::create(runtime::DeviceState& st) {
  WASMGPU_TRY(st.ready());
  std::unique_ptr<VulkanCommandList> list(new VulkanCommandList(st));
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = st.queue_family;
  WASMGPU_TRY(st.check("vkCreateCommandPool", st.vk.vkCreateCommandPool(st.device, &pool_info, nullptr, &list->pool_)));
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = list->pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  WASMGPU_TRY(st.check("vkAllocateCommandBuffers", st.vk.vkAllocateCommandBuffers(st.device, &alloc, &list->cmd_)));
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  WASMGPU_TRY(st.check("vkCreateFence", st.vk.vkCreateFence(st.device, &fence_info, nullptr, &list->fence_)));
  WASMGPU_ASSIGN_OR_RETURN(runtime::LaunchArena arena, runtime::LaunchArena::create(st));
  list->arena_.emplace(std::move(arena));
  return list;
}

VulkanCommandList::~VulkanCommandList() {
  arena_.reset();
  if (queries_) state_.vk.vkDestroyQueryPool(state_.device, queries_, nullptr);
  if (fence_) state_.vk.vkDestroyFence(state_.device, fence_, nullptr);
  if (pool_) state_.vk.vkDestroyCommandPool(state_.device, pool_, nullptr);
}

Status VulkanCommandList::begin() {
  arena_->reset();
  timed_ = false;
  WASMGPU_TRY(state_.check("vkResetCommandBuffer", state_.vk.vkResetCommandBuffer(cmd_, 0)));
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  WASMGPU_TRY(state_.check("vkBeginCommandBuffer", state_.vk.vkBeginCommandBuffer(cmd_, &begin)));
  barrier();
  return {};
}

void VulkanCommandList::barrier() {
  runtime::memory_barrier(state_, cmd_, kWorkStages, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          kWorkStages,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                              VK_ACCESS_TRANSFER_WRITE_BIT);
}

void VulkanCommandList::copy(device::BackendBuffer& src, device::BackendBuffer& dst, uint64_t src_offset,
                             uint64_t dst_offset, uint64_t bytes) {
  VkBufferCopy region{src_offset, dst_offset, bytes};
  state_.vk.vkCmdCopyBuffer(cmd_, handle_of(src), handle_of(dst), 1, &region);
}

void VulkanCommandList::fill(device::BackendBuffer& dst, uint32_t pattern) {
  state_.vk.vkCmdFillBuffer(cmd_, handle_of(dst), 0, VK_WHOLE_SIZE, pattern);
}

Status VulkanCommandList::start_timing() {
  if (!queries_) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(state_.physical_device, &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(state_.physical_device, &count, families.data());
    const uint32_t bits = state_.queue_family < count ? families[state_.queue_family].timestampValidBits : 0;
    if (bits == 0)
      return make_error(ErrorCode::Unsupported, "device '" + state_.info.name +
                                                    "' has no timestamps on its compute queue (timestampValidBits 0)");
    timestamp_mask_ = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    VkPhysicalDeviceProperties properties{};
    vkGetPhysicalDeviceProperties(state_.physical_device, &properties);
    timestamp_period_ns_ = properties.limits.timestampPeriod;
    VkQueryPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 2;
    WASMGPU_TRY(
        state_.check("vkCreateQueryPool", state_.vk.vkCreateQueryPool(state_.device, &info, nullptr, &queries_)));
  }
  state_.vk.vkCmdResetQueryPool(cmd_, queries_, 0, 2);
  state_.vk.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  timed_ = true;
  return {};
}

void VulkanCommandList::stop_timing() {
  if (timed_) state_.vk.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
}

Result<double> VulkanCommandList::elapsed_seconds() {
  if (!timed_) return make_error(ErrorCode::InvalidArgument, "the recording has no timestamps");
  uint64_t stamps[2] = {};
  WASMGPU_TRY(state_.check(
      "vkGetQueryPoolResults",
      state_.vk.vkGetQueryPoolResults(state_.device, queries_, 0, 2, sizeof stamps, stamps, sizeof(uint64_t),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT)));
  const uint64_t ticks = (stamps[1] - stamps[0]) & timestamp_mask_;
  return double(ticks) * timestamp_period_ns_ * 1e-9;
}

Status VulkanCommandList::end() {
  runtime::record_host_read_barrier(state_, cmd_);
  return state_.check("vkEndCommandBuffer", state_.vk.vkEndCommandBuffer(cmd_));
}

Status VulkanCommandList::submit() {
  WASMGPU_TRY(state_.check("vkResetFences", state_.vk.vkResetFences(state_.device, 1, &fence_)));
  VkSubmitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &cmd_;
  return state_.check("vkQueueSubmit", state_.vk.vkQueueSubmit(state_.queue, 1, &info, fence_));
}

Result<bool> VulkanCommandList::wait(std::chrono::nanoseconds timeout, std::string_view what) {
  const VkResult r = timeout.count() == 0
                         ? state_.vk.vkGetFenceStatus(state_.device, fence_)
                         : state_.vk.vkWaitForFences(state_.device, 1, &fence_, VK_TRUE, timeout_ns(timeout));
  if (r == VK_NOT_READY || r == VK_TIMEOUT) return false;
  if (r != VK_SUCCESS) return state_.fail(std::string(what) + ": waiting for its fence", r);
  return true;
}

}  // namespace wasmgpu::vulkan
