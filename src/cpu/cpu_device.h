// The native cpu device behind the device interface: wasm kernels compiled
// to host code through LLVM (jit.h), buffers in one reserved address range
// (address_space.h), workgroups spread over a thread pool (thread_pool.h),
// command lists run in order at submit. Opened as "cpu" (Device::open("cpu"),
// WASMGPU_DEVICE=cpu); docs/cpu-device.md says what it runs and refuses.
#pragma once

#include <memory>

#include "cpu/address_space.h"
#include "cpu/native_code_cache.h"
#include "cpu/thread_pool.h"
#include "device/device_backend.h"
#include "device/device_platform.h"

namespace wasmgpu::cpu {

// The cpu device's description: "cpu", type "CPU", with its thread count.
device::DeviceDescription describe_cpu_device(uint32_t threads);

class CpuDevice : public device::DeviceBackend {
 public:
  static Result<std::unique_ptr<CpuDevice>> create(uint32_t threads, const device::OpenOptions& options = {});
  ~CpuDevice() override;

  const device::DeviceDescription& description() const override { return description_; }
  Status ready() override { return {}; }
  Result<std::unique_ptr<device::BackendBuffer>> create_buffer(uint64_t bytes) override;
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
  uint64_t recording_generation() const override { return 0; }
  std::chrono::nanoseconds default_launch_timeout() const override { return std::chrono::minutes(10); }

  device::CacheStats cache_stats() const override { return native_cache_.stats(); }
  std::optional<std::vector<uint8_t>> read_cached(std::string_view folder, const Sha256Digest& key) override {
    return native_cache_.read_api(folder, key);
  }
  void write_cached(std::string_view folder, const Sha256Digest& key, std::span<const uint8_t> payload) override {
    native_cache_.write_api(folder, key, payload);
  }

  AddressSpace& space() { return *space_; }
  NativeCodeCache& native_cache() { return native_cache_; }
  ThreadPool& pool() { return pool_; }

 private:
  CpuDevice(AddressSpace* space, uint32_t threads, const device::OpenOptions& options);
  std::unique_ptr<AddressSpace> space_;
  ThreadPool pool_;
  NativeCodeCache native_cache_;
  device::DeviceDescription description_;
};

}  // namespace wasmgpu::cpu
