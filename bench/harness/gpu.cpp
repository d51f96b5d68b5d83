#include "harness/gpu.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "harness/staging.h"
#include "runtime/device_state.h"
#include "runtime/pipeline_statistics.h"

namespace wasmgpu::bench {

void check_vk(VkResult r, const char* what) {
  if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(int(r)));
}

namespace {

template <class T>
T unwrap(Result<T> result) {
  if (!result) throw std::runtime_error(result.error().to_string());
  return std::move(result).value();
}

runtime::Device open_device(runtime::Instance& instance, const std::optional<std::string>& name) {
  runtime::DeviceOptions options;
  options.name = name;
  return unwrap(runtime::Device::create(instance, options));
}

}  // namespace

Gpu::Gpu(const std::optional<std::string>& device)
    : instance_(unwrap(runtime::Instance::create())), device_(open_device(instance_, device)) {
  runtime::DeviceState& s = device_.state();
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(s.physical_device, &properties);
  timestamp_period_ns_ = properties.limits.timestampPeriod;
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical_device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical_device, &count, families.data());
  const uint32_t bits = families[s.queue_family].timestampValidBits;
  if (bits == 0)
    throw std::runtime_error("device '" + s.info.name + "' has no timestamps on its compute queue (timestampValidBits 0)");
  timestamp_mask_ = bits >= 64 ? ~0ull : (1ull << bits) - 1;

  VkCommandPoolCreateInfo pool_info{};

  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = s.queue_family;
  check_vk(vk().vkCreateCommandPool(handle(), &pool_info, nullptr, &pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cmd_info{};
  cmd_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cmd_info.commandPool = pool_;
  cmd_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cmd_info.commandBufferCount = 1;
  check_vk(vk().vkAllocateCommandBuffers(handle(), &cmd_info, &cmd_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check_vk(vk().vkCreateFence(handle(), &fence_info, nullptr, &fence_), "vkCreateFence");
  VkQueryPoolCreateInfo query_info{};
  query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  query_info.queryCount = 2;
  check_vk(vk().vkCreateQueryPool(handle(), &query_info, nullptr, &queries_), "vkCreateQueryPool");
  arena_.emplace(unwrap(runtime::LaunchArena::create(device_)));
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kTwinPushBytes};
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &range;
  check_vk(vk().vkCreatePipelineLayout(handle(), &layout_info, nullptr, &twin_layout_), "vkCreatePipelineLayout");
}

Gpu::~Gpu() {
  VkDevice d = handle();
  if (!d) return;
  vk().vkDeviceWaitIdle(d);
  staging_.reset();
  arena_.reset();
  for (VkPipeline p : pipelines_) vk().vkDestroyPipeline(d, p, nullptr);
  for (VkShaderModule m : shaders_) vk().vkDestroyShaderModule(d, m, nullptr);
  if (twin_layout_) vk().vkDestroyPipelineLayout(d, twin_layout_, nullptr);
  if (queries_) vk().vkDestroyQueryPool(d, queries_, nullptr);
  if (fence_) vk().vkDestroyFence(d, fence_, nullptr);
  if (pool_) vk().vkDestroyCommandPool(d, pool_, nullptr);
}

const VolkDeviceTable& Gpu::vk() const { return device_.state().vk; }

VkPipeline Gpu::twin_pipeline(std::span<const uint8_t> spirv, std::string_view name) {
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = spirv.size();
  std::vector<uint32_t> words((spirv.size() + 3) / 4);
  std::memcpy(words.data(), spirv.data(), spirv.size());
  module_info.pCode = words.data();
  VkShaderModule shader = VK_NULL_HANDLE;
  check_vk(vk().vkCreateShaderModule(handle(), &module_info, nullptr, &shader),
           ("vkCreateShaderModule (" + std::string(name) + ")").c_str());
  shaders_.push_back(shader);
  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = shader;
  info.stage.pName = "main";
  info.layout = twin_layout_;
  info.flags = runtime::pipeline_statistics_flags(device_.state());
  VkPipeline pipeline = VK_NULL_HANDLE;
  check_vk(vk().vkCreateComputePipelines(handle(), VK_NULL_HANDLE, 1, &info, nullptr, &pipeline),
           ("vkCreateComputePipelines (" + std::string(name) + ")").c_str());
  runtime::print_pipeline_statistics(device_.state(), pipeline, name);
  pipelines_.push_back(pipeline);
  return pipeline;
}

void Gpu::dispatch_twin(VkCommandBuffer cmd, VkPipeline pipeline, const void* push, uint32_t push_size,
                        uint32_t groups_x, uint32_t groups_y, uint32_t groups_z) const {
  uint8_t bytes[kTwinPushBytes] = {};
  std::memcpy(bytes, push, std::min(push_size, kTwinPushBytes));
  vk().vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vk().vkCmdPushConstants(cmd, twin_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, kTwinPushBytes, bytes);
  vk().vkCmdDispatch(cmd, groups_x, groups_y, groups_z);
}

void Gpu::barrier(VkCommandBuffer cmd) const {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
  vk().vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                                VK_PIPELINE_STAGE_HOST_BIT,
                            0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void Gpu::submit(const Recorder& record, bool timed) {
  check_vk(vk().vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check_vk(vk().vkBeginCommandBuffer(cmd_, &begin), "vkBeginCommandBuffer");
  // Earlier uploads (the runtime's own submissions) before this work.
  barrier(cmd_);
  if (timed) {
    vk().vkCmdResetQueryPool(cmd_, queries_, 0, 2);
    vk().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  }
  recorded_.clear();
  record(cmd_);
  if (timed) vk().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  barrier(cmd_);
  check_vk(vk().vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd_;
  runtime::DeviceState& s = device_.state();
  check_vk(vk().vkQueueSubmit(s.queue, 1, &submit, fence_), "vkQueueSubmit");
  // Generous: lavapipe compiles pipelines on first use inside the submission.
  check_vk(vk().vkWaitForFences(handle(), 1, &fence_, VK_TRUE, 600'000'000'000ull), "vkWaitForFences");
  check_vk(vk().vkResetFences(handle(), 1, &fence_), "vkResetFences");
  std::vector<runtime::RecordedLaunch> recorded = std::move(recorded_);
  recorded_.clear();
  for (const runtime::RecordedLaunch& launch : recorded)
    if (Status s = runtime::read_trap(launch); !s) throw std::runtime_error(s.error().to_string());
  arena_->reset();
}

void Gpu::run(const Recorder& record) { submit(record, false); }

Staging& Gpu::staging() {
  if (!staging_) staging_ = std::make_unique<Staging>(*this);
  return *staging_;
}

double Gpu::time_ms(const Recorder& record) {
  submit(record, true);
  uint64_t stamps[2] = {};
  check_vk(vk().vkGetQueryPoolResults(handle(), queries_, 0, 2, sizeof stamps, stamps, sizeof(uint64_t),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
           "vkGetQueryPoolResults");
  const uint64_t ticks = (stamps[1] - stamps[0]) & timestamp_mask_;
  return double(ticks) * timestamp_period_ns_ * 1e-6;
}

}  // namespace wasmgpu::bench
