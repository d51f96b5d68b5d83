// The Vulkan implementation of device::DeviceBackend over runtime::Device.
#pragma once

#include "device/device_backend.h"
#include "runtime/device.h"

namespace wasmgpu::vulkan {

// The description the API shows of a Vulkan device.
device::DeviceDescription describe(const runtime::DeviceInfo& info);

class VulkanDevice : public device::DeviceBackend {
 public:
  explicit VulkanDevice(runtime::Device device);

  const device::DeviceDescription& description() const override { return description_; }
  Status ready() override;
  Result<std::unique_ptr<device::BackendBuffer>> create_buffer(uint64_t bytes) override;
  Result<std::unique_ptr<device::BackendBuffer>> create_staging_buffer(uint64_t bytes) override;
  Result<std::unique_ptr<device::BackendImage>> create_image(const device::ImageDesc& desc) override;
  Result<std::unique_ptr<device::BackendSampler>> create_sampler(const device::SamplerDesc& desc) override;
  Result<std::unique_ptr<device::BackendModule>> load_wasm(std::span<const uint8_t> bytes,
                                                           const spirv::CompileOptions& options) override;
  Result<std::unique_ptr<device::BackendModule>> load_wasm_with_globals(
      std::span<const uint8_t> bytes, const spirv::CompileOptions& options,
      std::span<const uint64_t> imported_globals) override;
  Result<std::unique_ptr<device::BackendKernel>> create_spirv_kernel(std::span<const uint32_t> words,
                                                                     const KernelInterface& interface) override;
  Result<std::unique_ptr<device::BackendCommandList>> create_command_list() override;
  uint64_t recording_generation() const override;
  std::chrono::nanoseconds default_launch_timeout() const override;
  device::CacheStats cache_stats() const override;
  void save_caches() override { device_.save_caches(); }
  Result<device::SelftestReport> selftest(const device::SelftestOptions& options) override;
  Status wait(std::chrono::nanoseconds timeout) override { return device_.wait(timeout); }
  std::optional<std::vector<uint8_t>> read_cached(std::string_view folder, const Sha256Digest& key) override;
  void write_cached(std::string_view folder, const Sha256Digest& key, std::span<const uint8_t> payload) override;

  // The runtime device underneath, for tests that act on it directly (a
  // simulated device loss).
  runtime::Device& runtime_device() { return device_; }

 private:
  runtime::Device device_;
  device::DeviceDescription description_;
};

}  // namespace wasmgpu::vulkan
