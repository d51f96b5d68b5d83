// Device, the process-wide instance, and device enumeration.
#include "wasmgpu/device.hpp"

#include <cctype>
#include <fstream>
#include <iterator>
#include <mutex>

#include "api/impl.h"
#include "support/environment.h"

namespace wasmgpu {
namespace detail {

device::DevicePlatform& available_platform() {
  device::DevicePlatform& platform = device::default_platform();
  // A missing loader or driver is Unsupported (its code, set where it starts).
  if (Status available = platform.available(); !available.ok())
    raise(classify(available.error(), ErrorKind::Vulkan), available.error());
  return platform;
}

DeviceInfo public_info(const device::DeviceDescription& description) {
  DeviceInfo out;
  out.index = description.index;
  out.name = description.name;
  out.type = description.type;
  out.driver = description.driver;
  out.api_version = description.api_version;
  out.vendor_id = description.vendor_id;
  out.device_id = description.device_id;
  out.float64 = description.float64;
  out.max_buffer_bytes = description.max_buffer_bytes;
  out.max_workgroup_invocations = description.max_workgroup_invocations;
  out.device_local_memory_bytes = description.device_local_memory_bytes;
  out.max_workgroup_count_x = description.max_workgroup_count_x;
  out.max_shared_memory_bytes = description.max_shared_memory_bytes;
  out.subgroup_size = description.subgroup_size;
  out.max_storage_buffer_range = description.max_storage_buffer_range;
  out.max_allocation_bytes = description.max_allocation_bytes;
  out.int64 = description.int64;
  out.descriptor_indexing = description.descriptor_indexing;
  out.unusable_reason = description.unusable_reason;
  return out;
}

namespace {

uint32_t next_serial() {
  static uint32_t serial = 0;
  return ++serial;
}

}  // namespace

std::string device_label(const DeviceImpl& device) {
  return "Device #" + std::to_string(device.serial) + " (" + std::to_string(device.info.index) + " '" +
         device.info.name + "')";
}

DeviceImpl::DeviceImpl(std::unique_ptr<device::DeviceBackend> b) : backend(std::move(b)), serial(next_serial()) {
  info = public_info(backend->description());
  tuner = std::make_unique<LaunchTuner>(*backend);
}

Device Access::open(std::unique_ptr<device::DeviceBackend> backend) {
  return Device(std::make_shared<DeviceImpl>(std::move(backend)));
}

DeviceImpl::~DeviceImpl() {
  // Every submission must finish before its resources and the device go.
  for (auto& submission : in_flight) {
    try {
      submission->poll(std::chrono::nanoseconds::max());
    } catch (const Exception&) {
      // A lost device: nothing more to wait for.
    }
  }
  in_flight.clear();
  direct.reset();
}

void DeviceImpl::collect() {
  for (size_t i = 0; i < in_flight.size();) {
    std::shared_ptr<SubmissionState> submission = in_flight[i];
    bool finished = true;
    try {
      finished = submission->poll(std::chrono::nanoseconds(0));
    } catch (const Exception&) {
      // Lost: poll() released what it could; drop it.
    }
    if (finished)
      in_flight.erase(in_flight.begin() + i);
    else
      ++i;
  }
}

}  // namespace detail

using detail::DeviceImpl;

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (const device::DeviceDescription& description : detail::available_platform().devices())
    out.push_back(detail::public_info(description));
  return out;
}

namespace {

// Whether `spec` names the cpu device rather than a Vulkan one.
bool names_cpu(const std::optional<std::string>& spec) {
  if (!spec || spec->size() != 3) return false;
  std::string lower = *spec;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  return lower == "cpu";
}

Device open_cpu(const DeviceOptions& options) {
  device::DevicePlatform* platform = device::cpu_platform();
  if (!platform)
    detail::raise(ErrorKind::Unsupported, "this build of wasmgpu has no cpu device (it needs LLVM 19: llvm-19-dev)");
  device::OpenOptions open_options;
  open_options.use_environment = options.use_environment;
  open_options.cache = options.cache;
  open_options.cache_directory = options.cache_directory;
  return detail::Access::open(detail::check(platform->open(open_options), ErrorKind::Unsupported));
}

// Why no Vulkan device can be the default (no loader or driver, no device, or
// none that can run kernels), or nullopt when one can. With no device named,
// the cpu device is opened instead where this build has one.
std::optional<std::string> no_usable_vulkan_device() {
  device::DevicePlatform& platform = device::default_platform();
  if (Status available = platform.available(); !available.ok()) return available.error().to_string();
  const std::vector<device::DeviceDescription>& all = platform.devices();
  for (const device::DeviceDescription& description : all)
    if (description.usable()) return std::nullopt;
  if (all.empty()) return std::string("no Vulkan device found");
  return "no Vulkan device can run wasm kernels; " + platform.describe_devices();
}

}  // namespace

std::optional<DeviceInfo> cpu_device() {
  device::DevicePlatform* platform = device::cpu_platform();
  if (!platform) return std::nullopt;
  return detail::public_info(platform->devices().front());
}

DefaultDevice default_device() {
  std::optional<std::string> spec;
  spec = environment::device();
  DefaultDevice out;
  if (names_cpu(spec) && device::cpu_platform()) {
    out.cpu = true;
    return out;
  }
  if (!spec && device::cpu_platform()) {
    if (std::optional<std::string> why = no_usable_vulkan_device()) {
      out.cpu = true;
      out.reason = *why;
      return out;
    }
  }
  device::DevicePlatform& platform = detail::available_platform();
  Result<uint32_t> chosen = platform.choose(spec);
  if (chosen.ok())
    out.index = chosen.value();
  else
    out.reason = chosen.error().to_string();
  return out;
}

CacheLocation cache_location(const DeviceOptions& options) {
  CacheLocation out;
  Result<std::string> directory = detail::available_platform().cache_directory(options.cache, options.cache_directory);
  if (directory.ok())
    out.directory = directory.value();
  else
    out.disabled_reason = directory.error().message;
  return out;
}

// Without a Vulkan loader or driver no instance runs under validation and
// nothing was reported (the cpu device has no validation layer).
bool validation_enabled() {
  device::DevicePlatform& platform = device::default_platform();
  return platform.available().ok() && platform.validation_enabled();
}
std::vector<std::string> validation_messages() {
  device::DevicePlatform& platform = device::default_platform();
  if (!platform.available().ok()) return {};
  return platform.validation_messages();
}
void clear_validation_messages() {
  device::DevicePlatform& platform = device::default_platform();
  if (platform.available().ok()) platform.clear_validation_messages();
}

Device Device::open() { return open(DeviceOptions{}); }

Device Device::open(uint32_t index) {
  DeviceOptions options;
  options.index = index;
  return open(options);
}

Device Device::open(const DeviceOptions& options) {
  if (!options.index) {
    std::optional<std::string> spec = options.name;
    if (!spec && options.use_environment) spec = environment::device();
    if (names_cpu(spec)) return open_cpu(options);
    if (!spec && device::cpu_platform() && no_usable_vulkan_device()) return open_cpu(options);
  }
  device::DevicePlatform& platform = detail::available_platform();
  const std::vector<device::DeviceDescription>& all = platform.devices();
  if (options.index) {
    if (*options.index >= all.size())
      detail::raise(ErrorKind::NotFound, "no Vulkan device with index " + std::to_string(*options.index) + "; " +
                                             platform.describe_devices());
    if (!all[*options.index].usable())
      detail::raise(ErrorKind::Unsupported, "Vulkan device " + all[*options.index].summary +
                                                " cannot run wasmgpu kernels: " + all[*options.index].unusable_reason);
  }
  device::OpenOptions open_options;
  open_options.use_environment = options.use_environment;
  open_options.cache = options.cache;
  open_options.cache_directory = options.cache_directory;
  if (options.index) {
    open_options.index = *options.index;
  } else {
    std::optional<std::string> spec = options.name;
    if (!spec && options.use_environment) spec = environment::device();
    Result<uint32_t> chosen = platform.choose(spec);
    if (!chosen.ok()) {
      bool any_usable = false;
      for (const device::DeviceDescription& description : all) any_usable |= description.usable();
      detail::raise(spec || !any_usable ? (spec ? ErrorKind::NotFound : ErrorKind::Unsupported) : ErrorKind::NotFound,
                    chosen.error());
    }
    open_options.index = *chosen;
  }
  return detail::Access::open(detail::check(platform.open(open_options), ErrorKind::Vulkan));
}

Device::Device(std::shared_ptr<DeviceImpl> impl) : impl_(std::move(impl)) {}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;
Device::~Device() = default;

static DeviceImpl& live(const std::shared_ptr<DeviceImpl>& impl) {
  if (!impl) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  return *impl;
}

const DeviceInfo& Device::info() const { return live(impl_).info; }

uint64_t Device::checked_bytes(size_t count, size_t element_size) {
  if (element_size && count > UINT64_MAX / element_size)
    detail::raise(ErrorKind::InvalidArgument, "a buffer of " + std::to_string(count) + " elements of " +
                                                  std::to_string(element_size) + " bytes overflows 64 bits");
  return uint64_t(count) * element_size;
}

void Device::set_output_handler(std::function<void(const KernelOutput&)> handler) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  impl_->output_handler = std::move(handler);
}

void Device::wait_idle() {
  DeviceImpl& device = live(impl_);
  for (auto& submission : device.in_flight) submission->poll(std::chrono::nanoseconds::max());
  device.collect();
}

CacheStats Device::cache_stats() const {
  const device::CacheStats s = live(impl_).backend->cache_stats();
  CacheStats out;
  out.directory = s.directory;
  out.disabled_reason = s.disabled_reason;
  out.spirv_compiles = s.spirv_compiles;
  out.spirv_cache_hits = s.spirv_cache_hits;
  out.spirv_cache_corrupt = s.spirv_cache_corrupt;
  out.spirv_compile_seconds = s.spirv_compile_seconds;
  out.spirv_cache_read_seconds = s.spirv_cache_read_seconds;
  out.cache_write_failures = s.cache_write_failures;
  out.last_write_failure = s.last_write_failure;
  out.pipeline_cache_loaded_bytes = s.pipeline_cache_loaded_bytes;
  out.pipeline_cache_rejected = s.pipeline_cache_rejected;
  out.pipelines_created = s.pipelines_created;
  out.pipeline_create_seconds = s.pipeline_create_seconds;
  out.pipeline_cache_hits = s.pipeline_cache_hits;
  out.pipeline_feedback = s.pipeline_feedback;
  return out;
}

void Device::wait_idle(std::chrono::nanoseconds timeout) {
  DeviceImpl& device = live(impl_);
  // A year stands for "forever" (nanoseconds::max() would overflow the clock).
  const auto deadline =
      std::chrono::steady_clock::now() + std::min<std::chrono::nanoseconds>(timeout, std::chrono::hours(24 * 365));
  auto left = [&] {
    return std::max<std::chrono::nanoseconds>(std::chrono::nanoseconds(0), deadline - std::chrono::steady_clock::now());
  };
  for (auto& submission : device.in_flight)
    if (!submission->poll(left())) detail::raise(ErrorKind::Timeout, "the device's work did not finish in time");
  device.collect();
  detail::check(device.backend->wait(left()), ErrorKind::Timeout);
}

void Device::save_caches() { live(impl_).backend->save_caches(); }

CommandBuffer Device::command_buffer() {
  DeviceImpl& device = live(impl_);
  return CommandBuffer(impl_, device.new_command_buffer());
}

}  // namespace wasmgpu
