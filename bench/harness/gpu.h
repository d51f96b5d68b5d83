// The bench's own use of the Vulkan device: a command buffer of its own with
// GPU timestamps around the work it records, and compute pipelines for the
// GLSL twins (push constants only: every twin takes its buffers as device
// addresses, like the wasm kernels' pointers).
#pragma once

#include <volk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device.h"
#include "runtime/instance.h"
#include "runtime/launch_arena.h"
#include "runtime/recorded_launch.h"

namespace wasmgpu::bench {

// Push constants of every twin pipeline, in bytes (Vulkan guarantees 128).
inline constexpr uint32_t kTwinPushBytes = 128;

class Staging;

// Records work into a command buffer.
using Recorder = std::function<void(VkCommandBuffer)>;

class Gpu {
 public:
  // Opens the device (an index or part of its name; default as everywhere).
  explicit Gpu(const std::optional<std::string>& device);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  runtime::Device& device() { return device_; }
  const VolkDeviceTable& vk() const;
  VkDevice handle() const { return device_.handle(); }

  // A pipeline for a twin's SPIR-V with the 128-byte push-constant layout.
  // Owned by the Gpu.
  VkPipeline twin_pipeline(std::span<const uint8_t> spirv, std::string_view name);
  VkPipelineLayout twin_layout() const { return twin_layout_; }
  // Binds `pipeline`, pushes `push` (at most kTwinPushBytes) and dispatches.
  void dispatch_twin(VkCommandBuffer cmd, VkPipeline pipeline, const void* push, uint32_t push_size,
                     uint32_t groups_x, uint32_t groups_y = 1, uint32_t groups_z = 1) const;

  // A memory barrier from compute and transfer writes to compute, transfer
  // and host accesses: between dependent dispatches.
  void barrier(VkCommandBuffer cmd) const;

  // Where wasm launches recorded into the bench's command buffer keep their
  // LaunchBlocks; after each submission's wait every launch recorded (added
  // with add_recorded) has its trap record checked, then the arena is reset.
  runtime::LaunchArena& arena() { return *arena_; }
  void add_recorded(runtime::RecordedLaunch launch) { recorded_.push_back(std::move(launch)); }

  // Records `record` into the bench's command buffer, submits it and waits;
  // throws when a recorded wasm launch trapped.
  void run(const Recorder& record);
  // As run(), with timestamps before and after; returns the GPU time in ms.
  double time_ms(const Recorder& record);

  // The bench's staging buffer for inputs and checks (made on first use).
  Staging& staging();

 private:
  runtime::Instance instance_;
  runtime::Device device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  VkPipelineLayout twin_layout_ = VK_NULL_HANDLE;
  std::vector<VkShaderModule> shaders_;
  std::vector<VkPipeline> pipelines_;
  std::optional<runtime::LaunchArena> arena_;
  std::vector<runtime::RecordedLaunch> recorded_;
  std::unique_ptr<Staging> staging_;
  double timestamp_period_ns_ = 1.0;
  uint64_t timestamp_mask_ = ~0ull;

  void submit(const Recorder& record, bool timed);
};

// Throws std::runtime_error("<what> failed: VkResult N") unless r is VK_SUCCESS.
void check_vk(VkResult r, const char* what);

}  // namespace wasmgpu::bench
