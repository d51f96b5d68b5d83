#include "runtime_shim.h"

#include "abi/launch_abi.h"
#include "support/environment.h"

namespace wasmgpu::e2e::runtime {

namespace {

// The Vulkan runtime's trap message (runtime/launch.cpp), which the tests match.
std::string trap_message(const std::string& kernel, const device::TrapReport& report) {
  std::string message = "kernel '" + kernel + "' trapped: ";
  if (!report.kind)
    message += "trap of unknown kind";
  else
    message += std::string(abi::to_string(*report.kind)) + " at invocation " + std::to_string(report.invocation);
  message += " (" + std::to_string(report.trapped_invocations) +
             (report.trapped_invocations == 1 ? " invocation trapped)" : " invocations trapped)");
  return message;
}

}  // namespace

std::optional<uint32_t> Buffer::wasm_address() const {
  std::optional<uint64_t> address = buffer_->wasm_address();
  if (!address) return std::nullopt;
  return uint32_t(*address);
}

Result<Device> Device::create(Instance&) {
  std::optional<std::string> spec = environment::device();
  const bool cpu = spec && (*spec == "cpu" || *spec == "CPU");
  device::DevicePlatform* platform = cpu ? device::cpu_platform() : &device::default_platform();
  if (!platform) return make_error(ErrorCode::Unsupported, "this build has no cpu device");
  WASMGPU_TRY(platform->available());
  device::OpenOptions options;
  if (!cpu) {
    WASMGPU_ASSIGN_OR_RETURN(uint32_t index, platform->choose(spec));
    options.index = index;
  }
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<device::DeviceBackend> backend, platform->open(options));
  return Device(std::move(backend));
}

Result<Module> Module::load(Device& device, std::span<const uint8_t> bytes, const spirv::CompileOptions& options) {
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<device::BackendModule> module, device.backend().load_wasm(bytes, options));
  return Module(device, std::move(module));
}

Result<Kernel*> Module::kernel(std::string_view name) {
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second.get();
  WASMGPU_ASSIGN_OR_RETURN(device::BackendKernel * kernel, module_->kernel(name));
  auto wrapped = std::make_unique<Kernel>(device_->backend(), *kernel, std::string(name));
  return kernels_.emplace(std::string(name), std::move(wrapped)).first->second.get();
}

Status Kernel::launch(uint32_t n, uint32_t workgroup_size, std::span<const Arg> args) {
  device::LaunchShape shape;
  shape.n = n;
  shape.workgroup_size = {workgroup_size, 1, 1};
  return run(shape, args);
}

Status Kernel::launch(Grid grid, WorkgroupSize workgroup_size, std::span<const Arg> args) {
  device::LaunchShape shape;
  shape.workgroup_size = {workgroup_size.x, workgroup_size.y, workgroup_size.z};
  shape.groups = std::array<uint32_t, 3>{grid.x, grid.y, grid.z};
  return run(shape, args);
}

Status Kernel::run(const device::LaunchShape& shape, std::span<const Arg> args) {
  std::vector<device::BackendArg> backend_args;
  for (const Arg& arg : args) backend_args.push_back(arg.backend());
  WASMGPU_TRY(kernel_.check(shape, backend_args));
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<device::BackendCommandList> list, device_.create_command_list());
  WASMGPU_TRY(list->begin());
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<device::BackendRecordedLaunch> recorded,
                           kernel_.record(*list, shape, backend_args));
  WASMGPU_TRY(list->end());
  WASMGPU_TRY(list->submit());
  WASMGPU_ASSIGN_OR_RETURN(bool finished, list->wait(device_.default_launch_timeout(), name_));
  if (!finished) return make_error(ErrorCode::Timeout, "kernel '" + name_ + "' did not finish in time");
  if (std::optional<device::TrapReport> report = recorded->trap())
    return make_error(ErrorCode::Trap, trap_message(name_, *report));
  return {};
}

}  // namespace wasmgpu::e2e::runtime
