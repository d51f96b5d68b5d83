// Devices: enumerate the Vulkan devices and open one.
//
//   wasmgpu::Device device = wasmgpu::Device::open();   // WASMGPU_DEVICE, else the best
//   auto x = device.upload(std::span<const float>(host));
//   wasmgpu::Module module = device.load_file("saxpy.wasm");
//
// Every Device shares one process-wide Vulkan instance, created on first use
// and kept until the process exits (some drivers refuse to create instances
// after many create/destroy cycles in one process). WASMGPU_VALIDATION=1 (any
// value but "" and "0") runs it under the Khronos validation layer with
// synchronization validation; validation_messages() returns what it reported.
//
// Ownership: Device, Buffer, Module, CommandBuffer and Submission are
// move-only handles. A child (Buffer, Module, Kernel, CommandBuffer,
// Submission) keeps its Device alive, so handles may be destroyed in any
// order; the device is closed when its last handle goes. A Device is not
// thread-safe: use each Device and its children from one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wasmgpu/buffer.hpp"
#include "wasmgpu/command_buffer.hpp"
#include "wasmgpu/error.hpp"
#include "wasmgpu/image.hpp"
#include "wasmgpu/module.hpp"

namespace wasmgpu {

namespace detail {
struct DeviceImpl;
struct Access;
}  // namespace detail

struct DeviceInfo {
  uint32_t index = 0;       // position in devices()
  std::string name;         // "NVIDIA H200", "llvmpipe (LLVM 19.1.7, 256 bits)"
  std::string type;         // "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  std::string driver;       // driver name and version info
  std::string api_version;  // "1.3.289"
  uint32_t vendor_id = 0, device_id = 0;
  bool float64 = false;     // shaderFloat64: f64 kernels can run
  uint64_t max_buffer_bytes = 0;  // largest single buffer (0: not reported)
  uint32_t max_workgroup_invocations = 0;
  // The limits and features `wasmgpu devices` lists.
  uint64_t device_local_memory_bytes = 0;  // all device-local memory heaps
  uint32_t max_workgroup_count_x = 0;      // workgroups of one launch in x
  uint32_t max_shared_memory_bytes = 0;    // workgroup-shared memory per workgroup
  uint32_t subgroup_size = 0;
  uint64_t max_storage_buffer_range = 0;  // bytes one storage-buffer binding reaches
  uint64_t max_allocation_bytes = 0;      // largest single memory allocation
  bool int64 = false;                     // shaderInt64
  bool descriptor_indexing = false;       // images and samplers can be bound
  // Empty when wasmgpu kernels can run on it; otherwise why not.
  std::string unusable_reason;
  bool usable() const { return unusable_reason.empty(); }
};

// The Vulkan devices, in enumeration order (usable or not). Throws
// Exception(Unsupported) when there is no Vulkan loader or driver.
std::vector<DeviceInfo> devices();

// The device Device::open() opens: the one WASMGPU_DEVICE names when it is
// set, else the preferred usable one, else (no Vulkan driver, device, or
// device that can run kernels) the cpu device where this build has one; or,
// when none fits, why not (the message lists the devices). Throws as
// devices() does when it would be a Vulkan device.
struct DefaultDevice {
  std::optional<uint32_t> index;
  bool cpu = false;  // the cpu device below (no index): WASMGPU_DEVICE=cpu, or no usable Vulkan device
  // When there is neither: why not. When `cpu` without WASMGPU_DEVICE=cpu:
  // why no Vulkan device was chosen.
  std::string reason;
};
DefaultDevice default_device();

// The native cpu device (docs/cpu-device.md): wasm kernels compiled to host
// code, run on WASMGPU_CPU_THREADS threads (default: every core). Opened by
// the name "cpu" (DeviceOptions::name, WASMGPU_DEVICE=cpu); not one of
// devices(). The default where no Vulkan device can run kernels. nullopt
// when this build has no cpu device (no LLVM 19).
std::optional<DeviceInfo> cpu_device();

// What the kernels of one module printed since the last wait
// (Device::set_output_handler).
struct KernelOutput {
  std::string text;              // fd 1 (printf, puts, putchar, fd_write(1)), formatted, in the
                                 // order the records were reserved
  std::string error_text;        // fd 2 (fd_write(2), fprintf(stderr))
  uint64_t dropped_records = 0;  // records that did not fit in the print buffer
  uint64_t dropped_bytes = 0;    // their size
  uint64_t buffer_bytes = 0;     // the print buffer's size (ModuleOptions::print_buffer_bytes)
};

struct DeviceOptions {
  // This index of devices(); wins over `name` and the environment.
  std::optional<uint32_t> index;
  // An index or a case-insensitive substring of the device name, like
  // WASMGPU_DEVICE; used when `index` is not set. "cpu" opens the cpu device.
  std::optional<std::string> name;
  // Without index or name: honour WASMGPU_DEVICE, else choose by type
  // (discrete, integrated, virtual GPU, then CPU), else the cpu device.
  bool use_environment = true;
  // The on-disk caches of compiled kernels and pipelines (docs/caching.md):
  // false compiles everything from scratch and reads and writes nothing, as
  // WASMGPU_CACHE=0 does for every device.
  bool cache = true;
  // The cache directory; unset: WASMGPU_CACHE_DIR, else
  // $XDG_CACHE_HOME/wasmgpu, else ~/.cache/wasmgpu.
  std::optional<std::string> cache_directory;
};

// What a Device's on-disk caches did since it was opened (docs/caching.md).
struct CacheStats {
  // The cache directory; empty when caching is off, and then
  // `disabled_reason` says why.
  std::string directory;
  std::string disabled_reason;
  // wasm-to-SPIR-V compilations run (kernels, call shaders, the survey of a
  // module's callable exports) and those found in the cache; entries that
  // failed a check (ignored and rewritten); the wall time compiling, and
  // reading and checking cache entries.
  uint64_t spirv_compiles = 0;
  uint64_t spirv_cache_hits = 0;
  uint64_t spirv_cache_corrupt = 0;
  double spirv_compile_seconds = 0;
  double spirv_cache_read_seconds = 0;
  // Writes that failed (read-only or full disk): the work goes on uncached.
  uint64_t cache_write_failures = 0;
  std::string last_write_failure;
  // The driver's pipeline cache: bytes loaded when the device was opened (0:
  // none, or a stale or damaged file, then `pipeline_cache_rejected`), the
  // pipelines created, and those the driver found in the cache (known only
  // when `pipeline_feedback`, on Vulkan 1.3 devices).
  uint64_t pipeline_cache_loaded_bytes = 0;
  bool pipeline_cache_rejected = false;
  uint64_t pipelines_created = 0;
  // Seconds in the driver creating those pipelines (with the warm-up dispatch
  // where the driver compiles at the first dispatch): a big kernel's cost.
  double pipeline_create_seconds = 0;
  uint64_t pipeline_cache_hits = 0;
  bool pipeline_feedback = false;
};

// Where devices opened with `options` keep their on-disk caches (options
// and environment as Device::open reads them), or, when caching is off,
// why. Opens no device.
struct CacheLocation {
  std::string directory;  // empty when caching is off
  std::string disabled_reason;
};
CacheLocation cache_location(const DeviceOptions& options = {});

// Whether the process-wide instance runs under validation, every message the
// validation layer reported so far (warnings and errors), and clearing them
// (tests check that their work left none).
bool validation_enabled();
std::vector<std::string> validation_messages();
void clear_validation_messages();

class Device {
 public:
  // WASMGPU_DEVICE, else the preferred usable device, else the cpu device.
  // Throws NotFound when no device matches, Unsupported when none can run
  // kernels.
  static Device open();
  static Device open(uint32_t index);
  static Device open(const DeviceOptions& options);

  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const;

  // A zero-filled buffer of `count` elements of T.
  template <class T>
  Buffer<T> buffer(size_t count) {
    return Buffer<T>(create_buffer(checked_bytes(count, sizeof(T)), sizeof(T)));
  }
  // A buffer holding a copy of `values`.
  template <class T>
  Buffer<T> upload(std::span<const T> values) {
    Buffer<T> buffer(create_buffer(values.size_bytes(), sizeof(T)));
    buffer.write(values);
    return buffer;
  }
  template <class T>
  Buffer<T> upload(const std::vector<T>& values) {
    return upload(std::span<const T>(values));
  }
  // An untyped buffer of `bytes` bytes, zero-filled.
  BufferBase buffer_bytes(uint64_t bytes);
  // Host memory of `bytes` bytes for transfers through CommandBuffer::copy
  // (buffer.hpp, StagingBuffer), zero-filled. Throws Unsupported on a device
  // without one (the cpu device, whose buffers are host memory already).
  StagingBuffer staging_buffer(uint64_t bytes);

  // Zero-filled images and samplers (image.hpp). Throw Unsupported on a
  // device without descriptor indexing or without `format` for `usage`,
  // InvalidArgument for a zero size.
  Image image_2d(uint32_t width, uint32_t height, ImageFormat format, ImageUsage usage = ImageUsage::Storage);
  Image image_3d(uint32_t width, uint32_t height, uint32_t depth, ImageFormat format,
                 ImageUsage usage = ImageUsage::Storage);
  Sampler sampler(Filter filter = Filter::Nearest, AddressMode address_mode = AddressMode::ClampToEdge);

  // A wasm module (decoded, validated, memory created; kernels compile on
  // first use) or a SPIR-V module, told apart by the magic number. Throws
  // Compile with the decoder's or validator's message.
  Module load(std::span<const uint8_t> bytes, const ModuleOptions& options = {});
  Module load_file(const std::filesystem::path& path, const ModuleOptions& options = {});
  // SPIR-V given as words (GLSL, HLSL, Slang, rust-gpu output).
  Module load_spirv(std::span<const uint32_t> words, const ModuleOptions& options = {});

  // An empty command buffer (command_buffer.hpp).
  CommandBuffer command_buffer();

  // Waits until every submission of this device has finished.
  void wait_idle();

  // Waits up to `timeout` for everything the device runs, also work that a
  // call or launch left running when it timed out (the device takes new
  // work again once it has finished). Throws Timeout when it has not.
  void wait_idle(std::chrono::nanoseconds timeout);

  // Where kernel output goes: what printf, puts and fd_write of the kernels
  // of this device's modules printed, delivered once per module whenever a
  // wait (a Kernel call, Submission::wait, wait_idle) finds a launch
  // finished. An empty handler (the default) writes `text` to standard
  // output, `error_text` and each drop notice to standard error.
  void set_output_handler(std::function<void(const KernelOutput&)> handler);

  // What the on-disk caches did for this Device so far, and writing the
  // pipeline cache now (it is written when the Device closes; a program
  // that ends without closing it saves here).
  CacheStats cache_stats() const;
  void save_caches();

 private:
  friend struct detail::Access;
  explicit Device(std::shared_ptr<detail::DeviceImpl> impl);
  static uint64_t checked_bytes(size_t count, size_t element_size);
  BufferBase create_buffer(uint64_t bytes, uint32_t element_size);
  Image create_image(uint32_t width, uint32_t height, uint32_t depth, bool three_d, ImageFormat format,
                     ImageUsage usage);

  std::shared_ptr<detail::DeviceImpl> impl_;
};

}  // namespace wasmgpu
