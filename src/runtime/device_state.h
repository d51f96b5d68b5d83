// Internal: the state a Device shares with its Buffers, Modules and Kernels.
// Heap-allocated so that moving a Device leaves child pointers valid.
#pragma once

#include <volk.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/address_allocator.h"
#include "runtime/buffer.h"
#include "runtime/cache.h"
#include "runtime/compile_cache.h"
#include "runtime/device_info.h"
#include "runtime/disk_cache.h"
#include "runtime/pipeline_cache.h"
#include "runtime/launch_arena.h"
#include "support/result.h"

namespace wasmgpu::runtime {

struct InstanceState;
struct BindlessSet;

enum class MemoryKind {
  Device,  // device-local; host-mapped when that memory is also host-visible
  Host,    // host-visible and coherent (staging, launch blocks)
  // Host-visible and coherent, host-cached and outside device-local memory
  // where possible (not a BAR window): memory the CPU reads fast.
  HostCached,
};

struct MappedRange {
  uint64_t size = 0;
  VkDeviceAddress device_address = 0;
};

struct DeviceState {
  InstanceState* instance = nullptr;
  DeviceInfo info;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_properties{};
  VkDevice device = VK_NULL_HANDLE;
  VolkDeviceTable vk{};
  uint32_t queue_family = 0;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  bool float64_enabled = false;
  // The device has (and enabled) what images need (DeviceFeatures::images).
  bool images_enabled = false;
  // The descriptor set of images and samplers, created on first use (bindless.h).
  std::unique_ptr<BindlessSet> bindless;
  bool map_device_buffers = true;  // DeviceOptions::map_host_visible_buffers
  // WASMGPU_PIPELINE_STATISTICS set and the driver offers
  // VK_KHR_pipeline_executable_properties (pipeline_statistics.h).
  bool pipeline_statistics = false;

  bool lost = false;
  std::string lost_reason;
  // Non-empty while a submission that timed out may still be running.
  std::string pending;
  // The fence of that submission: `fence`, or `warmup_fence` for a warm-up
  // that ran past the compile timeout.
  VkFence pending_fence = VK_NULL_HANDLE;
  std::vector<std::function<void()>> deferred;  // destructions waiting for `pending`

  AddressAllocator addresses;
  std::map<uint32_t, MappedRange> mapped;  // wasm base -> live buffer
  // Changes whenever `mapped` does: a recorded launch's region table is
  // stale once it differs from the value at recording.
  uint64_t mapping_generation = 0;
  size_t live_children = 0;  // Buffers and Kernels not yet destroyed

  RawBuffer staging;  // reusable, host-visible
  // Trap records + LaunchBlocks of Kernel::launch (not of recorded launches,
  // which bring their own arena); created on first use.
  std::unique_ptr<LaunchArena> launch_arena;
  // Per-invocation stacks, device-local, shared by every launch; replaced
  // (never resized in place) when a launch needs more, the old ones living on
  // in the arenas of command buffers recorded with them.
  std::shared_ptr<SharedRawBuffer> stacks;

  // The on-disk caches (docs/caching.md); `disk_cache` is null when they are off.
  std::shared_ptr<DiskCache> disk_cache;
  CacheStats cache_stats;
  CompileCache compile_cache{nullptr, cache_stats};
  PipelineCache pipeline_cache;
  // Pipeline creation reports cache hits (VkPipelineCreationFeedback, Vulkan 1.3).
  bool pipeline_feedback = false;

  // Pipeline warm-ups (pipeline_warmup.h): whether this device gets them, and
  // their own command pool, command buffer and fence, created on the first
  // warm-up. Apart from `command_buffer`, so that a warm-up can run while
  // that one (or a caller's) is being recorded.
  bool warm_up_pipelines = false;
  VkCommandPool warmup_pool = VK_NULL_HANDLE;
  VkCommandBuffer warmup_command_buffer = VK_NULL_HANDLE;
  VkFence warmup_fence = VK_NULL_HANDLE;
  uint64_t pipeline_warmups = 0;  // warm-up dispatches that finished in time

  ~DeviceState();

  // Ok when the device can take new work: not lost, and no timed-out
  // submission still running (checked without waiting).
  Status ready();
  // Turns a failed VkResult into an Error; VK_ERROR_DEVICE_LOST marks the
  // device lost.
  Error fail(std::string_view what, VkResult result);
  Status check(std::string_view what, VkResult result) {
    if (result == VK_SUCCESS) return {};
    return fail(what, result);
  }

  // Creates whichever of a transient command pool on the device's queue
  // family, one primary command buffer from it and an unsignalled fence is
  // still null: what one submission at a time needs.
  Status create_submission_objects(VkCommandPool& pool, VkCommandBuffer& command_buffer, VkFence& fence);

  // Begins recording into the device's command buffer.
  Result<VkCommandBuffer> begin();
  // Ends, submits and waits up to `timeout`. On timeout the submission stays
  // pending and `description` ("kernel 'k'") names it in later errors.
  Status submit_and_wait(std::string_view description,
                         std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max());
  // Waits for a pending submission.
  Status wait_pending(std::chrono::nanoseconds timeout);

  // Runs `destroy` now, or once the pending submission has finished.
  void destroy_later(std::function<void()> destroy);

  // A memory type for `type_bits` of the kind asked for (images use it).
  std::optional<uint32_t> find_memory_type(uint32_t type_bits, MemoryKind kind) const;

  Result<RawBuffer> create_raw_buffer(uint64_t size, VkBufferUsageFlags usage, MemoryKind kind);
  void destroy_raw_buffer(RawBuffer& buffer);
  // Makes `buffer` at least `size` bytes (recreating it, contents lost).
  Status ensure_raw_buffer(RawBuffer& buffer, uint64_t size, VkBufferUsageFlags usage, MemoryKind kind);

 private:
  void finish_pending();
};

// Memory barrier helper for one-queue, in-order work.
void memory_barrier(DeviceState& device, VkCommandBuffer cmd, VkPipelineStageFlags src_stages, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stages, VkAccessFlags dst_access);

// How long launches wait by default.
inline constexpr std::chrono::seconds kDefaultLaunchTimeout{60};

}  // namespace wasmgpu::runtime
