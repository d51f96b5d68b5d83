#include "runtime/pipeline_warmup.h"

#include "support/units.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/device_state.h"
#include "support/environment.h"

namespace wasmgpu::runtime {

std::chrono::nanoseconds default_compile_timeout() {
  if (std::optional<std::chrono::nanoseconds> timeout = environment::compile_timeout())
    return std::max(*timeout, std::chrono::nanoseconds(1));
  return kDefaultCompileTimeout;
}

bool pipeline_warmup_wanted(const DeviceInfo& info) {
  if (std::optional<bool> wanted = environment::pipeline_warmup()) return *wanted;
  // NVIDIA compiles in vkCreateComputePipelines: nothing is left to warm up.
  return info.driver_id != VK_DRIVER_ID_NVIDIA_PROPRIETARY;
}

std::string format_seconds(std::chrono::nanoseconds duration) { return wasmgpu::format_seconds(duration); }

namespace {

Status create_warmup_objects(DeviceState& d) {
  return d.create_submission_objects(d.warmup_pool, d.warmup_command_buffer, d.warmup_fence);
}

}  // namespace

Status warm_up_pipeline(DeviceState& d, std::string_view kernel, VkPipeline pipeline,
                        const std::function<void(VkCommandBuffer)>& bind) {
  if (!d.warm_up_pipelines) return {};
  WASMGPU_TRY(d.ready());
  WASMGPU_TRY(create_warmup_objects(d));
  // ready() passed: no earlier warm-up still uses the pool or the fence.
  WASMGPU_TRY(d.check("vkResetCommandPool", d.vk.vkResetCommandPool(d.device, d.warmup_pool, 0)));
  WASMGPU_TRY(d.check("vkResetFences", d.vk.vkResetFences(d.device, 1, &d.warmup_fence)));
  VkCommandBuffer cmd = d.warmup_command_buffer;
  VkCommandBufferBeginInfo begin_info{};
  begin_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  WASMGPU_TRY(d.check("vkBeginCommandBuffer", d.vk.vkBeginCommandBuffer(cmd, &begin_info)));
  // A dispatch of zero workgroups touches nothing, but the validation layer
  // counts the accesses of its bound descriptors: the barriers order them
  // after earlier work and before later work, as for a real dispatch.
  constexpr VkAccessFlags kAll = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  memory_barrier(d, cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, kAll, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  d.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  bind(cmd);
  d.vk.vkCmdDispatch(cmd, 0, 0, 0);
  memory_barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, kAll);
  WASMGPU_TRY(d.check("vkEndCommandBuffer", d.vk.vkEndCommandBuffer(cmd)));
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  WASMGPU_TRY(d.check("vkQueueSubmit", d.vk.vkQueueSubmit(d.queue, 1, &submit, d.warmup_fence)));
  const std::chrono::nanoseconds timeout = default_compile_timeout();
  const VkResult r = d.vk.vkWaitForFences(d.device, 1, &d.warmup_fence, VK_TRUE, uint64_t(timeout.count()));
  if (r == VK_TIMEOUT) {
    d.pending = "compiling the pipeline of " + std::string(kernel);
    d.pending_fence = d.warmup_fence;
    return make_error(ErrorCode::Timeout,
                      std::string(kernel) + " did not start: compiling the pipeline took longer than " +
                          format_seconds(timeout) +
                          ", the compile timeout (WASMGPU_COMPILE_TIMEOUT); the driver keeps compiling and the "
                          "device accepts new work once it finishes (Device::wait)");
  }
  if (r != VK_SUCCESS) {
    d.pending = "compiling the pipeline of " + std::string(kernel);
    d.pending_fence = d.warmup_fence;
    return d.fail("vkWaitForFences", r);
  }
  ++d.pipeline_warmups;
  return {};
}

}  // namespace wasmgpu::runtime
