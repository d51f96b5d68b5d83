// The devices one backend can open, and opening one. Device selection by
// index or name (DeviceOptions, WASMGPU_DEVICE) runs in the API over this.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/device_backend.h"
#include "device/device_description.h"
#include "support/result.h"

namespace wasmgpu::device {

struct OpenOptions {
  uint32_t index = 0;
  bool use_environment = true;
  bool cache = true;  // the on-disk caches of compiled kernels and pipelines
  std::optional<std::string> cache_directory;
};

class DevicePlatform {
 public:
  virtual ~DevicePlatform() = default;
  // An error when the platform cannot run at all (no loader, no driver).
  virtual Status available() = 0;
  // Every device, usable or not, in enumeration order (after available()).
  virtual const std::vector<DeviceDescription>& devices() = 0;
  // The device `spec` (an index or a name substring) names, else the
  // preferred usable one; errors list the devices.
  virtual Result<uint32_t> choose(const std::optional<std::string>& spec) = 0;
  // The device list for messages.
  virtual std::string describe_devices() = 0;
  virtual Result<std::unique_ptr<DeviceBackend>> open(const OpenOptions& options) = 0;

  // The directory of the on-disk caches for devices opened with these
  // options (and the environment), or an error saying why caching is off.
  virtual Result<std::string> cache_directory(bool cache, const std::optional<std::string>& directory) {
    (void)cache, (void)directory;
    return make_error(ErrorCode::Unsupported, "this platform keeps no caches");
  }

  // The self-test's properties replaced by wrong raw results (the test hook
  // WASMGPU_PROBE_FORCE); an error naming a property there is not.
  virtual Result<std::vector<std::string>> selftest_force_from_environment() { return std::vector<std::string>{}; }
  // The host's machine and processor features ("x86_64: fpu vme ..."), which
  // key the self-test's cached results.
  virtual std::string host_cpu_features() { return "unknown"; }

  // Validation of the platform's API use (Vulkan: the validation layer).
  virtual bool validation_enabled() = 0;
  virtual std::vector<std::string> validation_messages() = 0;
  virtual void clear_validation_messages() = 0;
};

// The platform Device::open uses: defined by the backend library the
// program links (src/vulkan for wasmgpu_api; a double in the seam's tests).
DevicePlatform& default_platform();

// The native cpu device's platform (src/cpu), opened by the name "cpu"; null
// where the program was built without it (src/device/no_cpu) or links a
// double. Defined once per program, like default_platform().
DevicePlatform* cpu_platform();

}  // namespace wasmgpu::device
