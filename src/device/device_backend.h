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
  // A buffer in host memory that the host reads and writes through
  // BackendBuffer::host_data() and command lists copy to and from; kernels
  // never take it. Devices without one refuse (Unsupported).
  virtual Result<std::unique_ptr<BackendBuffer>> create_staging_buffer(uint64_t bytes) {
    (void)bytes;
    return make_error(ErrorCode::Unsupported, "this device has no staging buffers");
  }
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

  // What the on-disk caches did since the device was opened (zeros for a
  // device without caches), and writing them out now rather than when the
  // device closes.
  virtual CacheStats cache_stats() const { return {}; }
  virtual void save_caches() {}
  // Runs the device self-test (docs/selftest.md) and caches its raw
  // results for the device's later kernels.
  virtual Result<SelftestReport> selftest(const SelftestOptions& options) {
    (void)options;
    return make_error(ErrorCode::Unsupported, "this device has no self-test");
  }
  // Waits up to `timeout` for work the device still runs outside any
  // command list (a call that timed out); an error when it is still busy.
  virtual Status wait(std::chrono::nanoseconds timeout) {
    (void)timeout;
    return {};
  }
  // Small entries the API keeps in the device's on-disk cache
  // (docs/caching.md; autotuned launch shapes), one per key in `folder`:
  // nullopt when absent, failing its checks, or when caching is off. A
  // failed write is ignored: callers go on without the cache. A device
  // without a cache keeps nothing.
  virtual std::optional<std::vector<uint8_t>> read_cached(std::string_view, const Sha256Digest&) {
    return std::nullopt;
  }
  virtual void write_cached(std::string_view, const Sha256Digest&, std::span<const uint8_t>) {}
};

}  // namespace wasmgpu::device
