// The Vulkan devices of the process-wide instance: the default platform of
// the public API.
#include "device/device_platform.h"
#include "probe/device_probe.h"
#include "runtime/disk_cache.h"
#include "runtime/host_cpu.h"
#include "runtime/instance.h"
#include "vulkan/vulkan_device.h"

namespace wasmgpu::vulkan {

namespace {

class VulkanPlatform : public device::DevicePlatform {
 public:
  // Created once and never destroyed: drivers may refuse new instances after
  // many create/destroy cycles, and Devices in static storage may outlive any
  // static owner. The first failure is kept and reported to every caller.
  VulkanPlatform() : instance_(new Result<runtime::Instance>(runtime::Instance::create())) {
    if (instance_->ok())
      for (const runtime::DeviceInfo& info : instance_->value().devices()) devices_.push_back(describe(info));
  }

  Status available() override {
    if (!instance_->ok()) return instance_->error();
    return {};
  }
  const std::vector<device::DeviceDescription>& devices() override { return devices_; }
  Result<uint32_t> choose(const std::optional<std::string>& spec) override {
    return runtime::choose_device(instance().devices(), spec ? std::optional<std::string_view>(*spec) : std::nullopt);
  }
  std::string describe_devices() override { return runtime::describe_devices(instance().devices()); }

  Result<std::unique_ptr<device::DeviceBackend>> open(const device::OpenOptions& options) override {
    runtime::DeviceOptions runtime_options;
    runtime_options.index = options.index;
    runtime_options.use_environment = options.use_environment;
    runtime_options.cache.enabled = options.cache;
    runtime_options.cache.directory = options.cache_directory;
    WASMGPU_ASSIGN_OR_RETURN(runtime::Device device, runtime::Device::create(instance(), runtime_options));
    return std::unique_ptr<device::DeviceBackend>(std::make_unique<VulkanDevice>(std::move(device)));
  }

  Result<std::string> cache_directory(bool cache, const std::optional<std::string>& directory) override {
    runtime::CacheOptions options;
    options.enabled = cache;
    options.directory = directory;
    WASMGPU_ASSIGN_OR_RETURN(std::filesystem::path path, runtime::resolve_cache_directory(options));
    return path.string();
  }

  Result<std::vector<std::string>> selftest_force_from_environment() override {
    return probe::probe_force_from_environment();
  }
  std::string host_cpu_features() override { return runtime::host_cpu_features(); }

  bool validation_enabled() override { return instance().validation_enabled(); }
  std::vector<std::string> validation_messages() override { return instance().validation_messages(); }
  void clear_validation_messages() override { instance().clear_validation_messages(); }

 private:
  // Callers check available() first.
  runtime::Instance& instance() { return instance_->value(); }
  Result<runtime::Instance>* instance_;
  std::vector<device::DeviceDescription> devices_;
};

}  // namespace

}  // namespace wasmgpu::vulkan

namespace wasmgpu::device {

DevicePlatform& default_platform() {
  static DevicePlatform* platform = new vulkan::VulkanPlatform();
  return *platform;
}

}  // namespace wasmgpu::device
