// Device, the process-wide instance, and device enumeration.
#include "wasmgpu/device.hpp"

#include <fstream>
#include <iterator>
#include <mutex>

#include "api/impl.h"
#include "runtime/instance.h"
#include "runtime/vk_util.h"
#include "support/environment.h"

namespace wasmgpu {
namespace detail {

runtime::Instance& process_instance() {
  // Created once and never destroyed: drivers may refuse new instances after
  // many create/destroy cycles, and Devices in static storage may outlive any
  // static owner. The first failure is kept and reported to every caller.
  static Result<runtime::Instance>* instance = new Result<runtime::Instance>(runtime::Instance::create());
  if (!instance->ok()) raise(classify(instance->error(), ErrorKind::Vulkan), instance->error());
  return instance->value();
}

namespace {

DeviceInfo public_info(const runtime::DeviceInfo& info) {
  DeviceInfo out;
  out.index = info.index;
  out.name = info.name;
  out.type = runtime::to_string(info.type);
  out.driver = info.driver_name + (info.driver_info.empty() ? "" : " " + info.driver_info);
  out.api_version = runtime::format_api_version(info.api_version);
  out.vendor_id = info.vendor_id;
  out.device_id = info.device_id;
  out.float64 = info.features.shader_float64;
  out.max_buffer_bytes = info.limits.max_buffer_size ? info.limits.max_buffer_size
                                                     : info.limits.max_memory_allocation_size;
  out.max_workgroup_invocations = info.limits.max_workgroup_invocations;
  out.unusable_reason = info.unusable_reason;
  return out;
}

uint32_t next_serial() {
  static uint32_t serial = 0;
  return ++serial;
}

}  // namespace

std::string device_label(const DeviceImpl& device) {
  return "Device #" + std::to_string(device.serial) + " (" + std::to_string(device.info.index) +
         " '" + device.info.name + "')";
}

DeviceImpl::DeviceImpl(runtime::Device d) : device(std::move(d)), serial(next_serial()) {
  info = public_info(device.info());
  info.float64 = device.float64_enabled();
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
  for (const runtime::DeviceInfo& info : detail::process_instance().devices())
    out.push_back(detail::public_info(info));
  return out;
}

bool validation_enabled() { return detail::process_instance().validation_enabled(); }
std::vector<std::string> validation_messages() { return detail::process_instance().validation_messages(); }
void clear_validation_messages() { detail::process_instance().clear_validation_messages(); }

Device Device::open() { return open(DeviceOptions{}); }

Device Device::open(uint32_t index) {
  DeviceOptions options;
  options.index = index;
  return open(options);
}

Device Device::open(const DeviceOptions& options) {
  runtime::Instance& instance = detail::process_instance();
  const std::vector<runtime::DeviceInfo>& all = instance.devices();
  if (options.index) {
    if (*options.index >= all.size())
      detail::raise(ErrorKind::NotFound, "no Vulkan device with index " + std::to_string(*options.index) +
                                             "; " + runtime::describe_devices(all));
    if (!all[*options.index].usable())
      detail::raise(ErrorKind::Unsupported, "Vulkan device " + all[*options.index].summary() +
                                                " cannot run wasmgpu kernels: " +
                                                all[*options.index].unusable_reason);
  }
  runtime::DeviceOptions runtime_options;
  runtime_options.index = options.index;
  runtime_options.name = options.name;
  runtime_options.use_environment = options.use_environment;
  runtime_options.cache.enabled = options.cache;
  runtime_options.cache.directory = options.cache_directory;
  if (!options.index) {
    std::optional<std::string> spec = options.name;
    if (!spec && options.use_environment) spec = environment::device();
    Result<uint32_t> chosen = runtime::choose_device(all, spec);
    if (!chosen.ok()) {
      bool any_usable = false;
      for (const runtime::DeviceInfo& info : all) any_usable |= info.usable();
      detail::raise(spec || !any_usable ? (spec ? ErrorKind::NotFound : ErrorKind::Unsupported)
                                        : ErrorKind::NotFound,
                    chosen.error());
    }
    runtime_options.index = *chosen;
  }
  runtime::Device device =
      detail::check(runtime::Device::create(instance, runtime_options), ErrorKind::Vulkan);
  return Device(std::make_shared<DeviceImpl>(std::move(device)));
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

void Device::wait_idle() {
  DeviceImpl& device = live(impl_);
  for (auto& submission : device.in_flight) submission->poll(std::chrono::nanoseconds::max());
  device.collect();
}

CommandBuffer Device::command_buffer() {
  DeviceImpl& device = live(impl_);
  return CommandBuffer(impl_, device.new_command_buffer());
}

}  // namespace wasmgpu
