// The Vulkan instance: loads the system's Vulkan loader, enumerates devices
// and, when asked, runs everything under the Khronos validation layer with
// synchronization validation, collecting what it reports.
#pragma once

#include <volk.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/device_info.h"
#include "support/result.h"

namespace wasmgpu::runtime {

struct InstanceOptions {
  // Enable VK_LAYER_KHRONOS_validation with synchronization validation.
  // nullopt: on when the environment variable WASMGPU_VALIDATION is set to
  // anything but "" or "0". When validation is on and the layer is missing,
  // Instance::create fails.
  std::optional<bool> validation;
  // Print each validation message to stderr as it arrives (they are also
  // collected, see Instance::validation_messages).
  bool print_validation_messages = true;
};

struct InstanceState;  // internal; shared with the Devices created from it

// A handle on the process's VkInstance for its validation setting and loader
// environment, created by the first Instance and kept for the process's
// lifetime (drivers fail after many create/destroy cycles: NVIDIA's after
// about 29), with this Instance's own debug messenger and validation
// messages. Move-only. Every Device created from an Instance must be
// destroyed before it (and with it every Buffer, Module and Kernel).
class Instance {
 public:
  // Fails with a clear message, never a crash, when no Vulkan loader or
  // driver is installed.
  static Result<Instance> create(const InstanceOptions& options = {});

  Instance(Instance&&) noexcept;
  Instance& operator=(Instance&&) noexcept;
  ~Instance();

  // Physical devices in enumeration order, with the reason each unusable one
  // cannot run wasmgpu kernels.
  const std::vector<DeviceInfo>& devices() const;

  bool validation_enabled() const;
  // Every warning and error the validation layer reported so far (empty when
  // validation is off). Thread-safe.
  std::vector<std::string> validation_messages() const;
  void clear_validation_messages();

  VkInstance handle() const;
  InstanceState& state() const { return *state_; }

 private:
  explicit Instance(std::unique_ptr<InstanceState> state);
  std::unique_ptr<InstanceState> state_;
};

}  // namespace wasmgpu::runtime
