// One opened device behind the device interface: the public API
// (src/api) reaches a device only through this class family. Vulkan is the
// first implementation (src/vulkan); tests run the API against a double.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "device/backend_buffer.h"
#include "device/backend_command_list.h"
#include "device/backend_image.h"
#include "device/backend_kernel.h"
#include "device/backend_module.h"
#include "device/backend_sampler.h"
#include "device/cache_stats.h"
#include "device/device_description.h"
#include "device/selftest_report.h"
#include "spirv/compiler.h"
#include "support/result.h"
#include "interface/kernel_interface.h"
#include "support/sha256.h"

namespace wasmgpu::device {

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual const DeviceDescription& description() const = 0;
  // An error once the device can take no more work (lost).
  virtual Status ready() = 0;

  virtual Result<std::unique_ptr<BackendBuffer>> create_buffer(uint64_t bytes) = 0;
  virtual Result<std::unique_ptr<BackendImage>> create_image(const ImageDesc& desc) = 0;
  virtual Result<std::unique_ptr<BackendSampler>> create_sampler(const SamplerDesc& desc) = 0;
  // Decodes, validates and instantiates a wasm module.
  virtual Result<std::unique_ptr<BackendModule>> load_wasm(std::span<const uint8_t> bytes,
                                                           const spirv::CompileOptions& options) = 0;
  // The same for a module that imports globals, with their values (bits, in
  // import order). Devices that cannot take them refuse such modules.
  virtual Result<std::unique_ptr<BackendModule>> load_wasm_with_globals(std::span<const uint8_t> bytes,
                                                                        const spirv::CompileOptions& options,
                                                                        std::span<const uint64_t> imported_globals) {
    if (!imported_globals.empty())
      return make_error(ErrorCode::Unsupported, "this device cannot take values of imported globals");
    return load_wasm(bytes, options);
  }
  // The entry point `interface.name` of a foreign SPIR-V module.
  virtual Result<std::unique_ptr<BackendKernel>> create_spirv_kernel(std::span<const uint32_t> words,
                                                                     const KernelInterface& interface) = 0;
  virtual Result<std::unique_ptr<BackendCommandList>> create_command_list() = 0;

  // Changes when recorded command lists must be recorded anew (Vulkan: the
  // table of buffer addresses that launches record changed).
  virtual uint64_t recording_generation() const = 0;
  // How long a direct kernel call waits for its launch.
  virtual std::chrono::nanoseconds default_launch_timeout() const = 0;

#include "interface/kernel_interface.h"
#include "support/sha256.h"
};

}  // namespace wasmgpu::device
