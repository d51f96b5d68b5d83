// A logical Vulkan device with one compute queue: the parent of every Buffer,
// Module and Kernel.
#pragma once

#include <volk.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/buffer.h"
#include "runtime/cache.h"
#include "runtime/device_info.h"
#include "runtime/instance.h"
#include "support/result.h"

namespace wasmgpu::runtime {

struct DeviceOptions {
  // Use this device index (Instance::devices()); wins over everything else.
  std::optional<uint32_t> index;
  // A device index or a case-insensitive substring of the device name, like
  // the WASMGPU_DEVICE environment variable; used when `index` is not set.
  std::optional<std::string> name;
  // Without `index` or `name`, honour WASMGPU_DEVICE; without that either,
  // choose by type preference (discrete, integrated, virtual GPU, then CPU).
  bool use_environment = true;
  // Map device buffers into host memory when their memory is host-visible
  // (CPU devices, unified memory). false sends every Buffer::read/write
  // through the staging buffer, as on a discrete GPU (tests use it).
  bool map_host_visible_buffers = true;
  // The compiled-SPIR-V and pipeline caches on disk (docs/caching.md).
  CacheOptions cache;
};

struct DeviceState;  // internal

// Owns the VkDevice, its compute queue and command pool. Move-only.
//
// Lifetime: a Device must not outlive its Instance, and every Buffer, Module
// and Kernel created from a Device must be destroyed before the Device.
//
// All work the Device submits itself is synchronous: an operation that needs
// the GPU (a launch, a staged read or write) submits, waits for its own
// completion and returns. Kernel::record (recorded_launch.h) instead records
// launches into a caller's command buffer, which the caller submits.
// The only wait that can time out is a launch's; after a launch timed out, the
// device refuses new work until that launch has finished (see wait()).
//
// After VK_ERROR_DEVICE_LOST every call fails with an error naming the loss;
// the process keeps running. A Device is not thread-safe.
class Device {
 public:
  static Result<Device> create(Instance& instance, const DeviceOptions& options = {});

  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  ~Device();  // waits for the device to go idle

  const DeviceInfo& info() const;
  // f64 kernels need it; enabled whenever the device has it.
  bool float64_enabled() const;
  bool lost() const;

  // A device-local buffer of `size` bytes (contents unspecified until written;
  // see Buffer::fill). It gets a wasm address when one fits; when it does not,
  // it is still created, but kernels cannot be launched with it.
  Result<Buffer> create_buffer(uint64_t size);

  // Waits up to `timeout` for a launch that timed out earlier; the device
  // accepts new work again once it returns success.
  Status wait(std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max());

  // What the on-disk caches did for this Device (docs/caching.md):
  // stats.spirv_compiles == 0 after loading modules means every kernel came
  // from the cache.
  const CacheStats& cache_stats() const;
  // Writes the pipeline cache now (it is written when the Device is
  // destroyed, and at most once a minute while pipelines are created).
  void save_caches();

  // Validation messages of the Instance (see Instance::validation_messages).
  std::vector<std::string> validation_messages() const;

  // Bytes of the wasm address space that buffers currently reserve (guards
  // included) and the number of buffers with a wasm address.
  uint64_t mapped_address_bytes() const;
  size_t mapped_buffer_count() const;

  VkDevice handle() const;
  VkPhysicalDevice physical_device() const;
  DeviceState& state() const { return *state_; }

 private:
  explicit Device(std::unique_ptr<DeviceState> state);
  std::unique_ptr<DeviceState> state_;
};

}  // namespace wasmgpu::runtime
