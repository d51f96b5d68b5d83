// A test double of the device interface: host memory for buffers and
// images, launches recorded but not run, copies and fills done at submit.
// It proves the seam: the public API's checks run against it without
// Vulkan (device_seam_tests), and it shows what reached the device.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device/device_backend.h"
#include "device/device_platform.h"

namespace wasmgpu::device::fake {

// One launch as the device saw it at submit.
struct FakeLaunch {
  std::string kernel;
  LaunchShape shape;
  std::vector<BackendArg::Kind> kinds;
  std::vector<uint64_t> bits;  // scalars' bits, 0 for the rest
};

// What every FakeDevice of the process did, for tests to check.
struct FakeLog {
  std::vector<FakeLaunch> launches;  // in submission order
  uint32_t submits = 0;
  uint32_t buffers_created = 0;
  // The device cache (DeviceBackend::read_cached), by folder and key: kept
  // across devices, as a disk cache is; tests clear it with the log.
  std::map<std::pair<std::string, Sha256Digest>, std::vector<uint8_t>> cache;
};
FakeLog& fake_log();

class FakeDevice : public DeviceBackend {
 public:
  explicit FakeDevice(DeviceDescription description) : description_(std::move(description)) {}

  const DeviceDescription& description() const override { return description_; }
  Status ready() override { return {}; }
  Result<std::unique_ptr<BackendBuffer>> create_buffer(uint64_t bytes) override;
  Result<std::unique_ptr<BackendImage>> create_image(const ImageDesc& desc) override;
  Result<std::unique_ptr<BackendSampler>> create_sampler(const SamplerDesc& desc) override;
  Result<std::unique_ptr<BackendModule>> load_wasm(std::span<const uint8_t> bytes,
                                                   const spirv::CompileOptions& options) override;
  Result<std::unique_ptr<BackendKernel>> create_spirv_kernel(std::span<const uint32_t> words,
                                                             const KernelInterface& interface) override;
  Result<std::unique_ptr<BackendCommandList>> create_command_list() override;
  uint64_t recording_generation() const override { return 0; }
  std::chrono::nanoseconds default_launch_timeout() const override { return std::chrono::seconds(1); }
  std::optional<std::vector<uint8_t>> read_cached(std::string_view folder, const Sha256Digest& key) override;
  void write_cached(std::string_view folder, const Sha256Digest& key, std::span<const uint8_t> payload) override;

 private:
  DeviceDescription description_;
};

// Two devices: 0 "Fake GPU" (usable) and 1 "Fake Display" (unusable).
class FakePlatform : public DevicePlatform {
 public:
  FakePlatform();
  Status available() override { return {}; }
  const std::vector<DeviceDescription>& devices() override { return devices_; }
  Result<uint32_t> choose(const std::optional<std::string>& spec) override;
  std::string describe_devices() override;
  Result<std::unique_ptr<DeviceBackend>> open(const OpenOptions& options) override;
  bool validation_enabled() override { return false; }
  std::vector<std::string> validation_messages() override { return {}; }
  void clear_validation_messages() override {}

 private:
  std::vector<DeviceDescription> devices_;
};

}  // namespace wasmgpu::device::fake
