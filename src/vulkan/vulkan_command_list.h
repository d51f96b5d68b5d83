// The Vulkan implementation of device::BackendCommandList: one command
// buffer of its own pool, a fence, and the arena of its launches' blocks.
#pragma once

#include <volk.h>

#include <optional>

#include "device/backend_command_list.h"
#include "runtime/device_state.h"
#include "runtime/launch_arena.h"

namespace wasmgpu::vulkan {

class VulkanCommandList : public device::BackendCommandList {
 public:
  static Result<std::unique_ptr<VulkanCommandList>> create(runtime::DeviceState& state);
  ~VulkanCommandList() override;

  Status begin() override;
  void barrier() override;
  void copy(device::BackendBuffer& src, device::BackendBuffer& dst, uint64_t src_offset, uint64_t dst_offset,
            uint64_t bytes) override;
  void fill(device::BackendBuffer& dst, uint32_t pattern) override;
  Status start_timing() override;
  void stop_timing() override;
  Result<double> elapsed_seconds() override;
  Status end() override;
  Status submit() override;
  Result<bool> wait(std::chrono::nanoseconds timeout, std::string_view what) override;

  VkCommandBuffer cmd() const { return cmd_; }
  runtime::LaunchArena& arena() { return *arena_; }

 private:
  explicit VulkanCommandList(runtime::DeviceState& state) : state_(state) {}
  runtime::DeviceState& state_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  std::optional<runtime::LaunchArena> arena_;
  // GPU timestamps: two queries, made on the first start_timing().
  VkQueryPool queries_ = VK_NULL_HANDLE;
  double timestamp_period_ns_ = 1.0;
  uint64_t timestamp_mask_ = ~0ull;
  bool timed_ = false;  // the current recording has both timestamps
};

}  // namespace wasmgpu::vulkan
