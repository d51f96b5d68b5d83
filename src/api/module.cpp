// Modules, kernels and loading, over the device's modules and kernels.
#include "wasmgpu/module.hpp"

#include <fstream>
#include <iterator>

#include "api/impl.h"
#include "reflect/spirv_reflect.h"
#include "reflect/wasm_interface.h"
#include "support/environment.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace detail {

namespace {

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) raise(ErrorKind::Io, "cannot open '" + path.string() + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) raise(ErrorKind::Io, "cannot read '" + path.string() + "'");
  return bytes;
}

}  // namespace

KernelImpl& kernel_of(ModuleImpl& module, std::string_view name) {
  if (auto it = module.kernels.find(name); it != module.kernels.end()) return *it->second;
  const KernelInterface* interface = nullptr;
  for (const KernelInterface& k : module.interfaces)
    if (k.name == name) interface = &k;
  if (!interface) {
    std::string names;
    for (const KernelInterface& k : module.interfaces) names += (names.empty() ? "'" : ", '") + k.name + "'";
    raise(ErrorKind::NotFound, "the module has no kernel named '" + std::string(name) +
                                   "' (its kernels: " + (names.empty() ? "none" : names) + ")");
  }
  std::unique_ptr<KernelImpl> kernel;
  if (module.source == KernelSource::Wasm) {
    device::BackendKernel* compiled = check_kernel_load(module.wasm->kernel(name));
    bool has_metadata = false;
    for (const wasm::KernelMetadata& m : module.wasm->kernel_metadata()) has_metadata |= m.kernel == name;
    kernel = std::make_unique<KernelImpl>(&module, *interface, compiled, has_metadata);
  } else {
    kernel = std::make_unique<KernelImpl>(
        &module, *interface, check_kernel_load(module.device->backend->create_spirv_kernel(module.spirv, *interface)));
  }
  return *module.kernels.emplace(std::string(name), std::move(kernel)).first->second;
}

}  // namespace detail

using detail::DeviceImpl;
using detail::ModuleImpl;

// ------------------------------------------------------------------ Kernel

Kernel::Kernel(std::shared_ptr<DeviceImpl> device, std::shared_ptr<detail::KernelImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}

const KernelInterface& Kernel::interface() const { return impl_->interface(); }
const std::string& Kernel::name() const { return impl_->interface().name; }

void Kernel::launch(Launch shape, std::span<const Argument> args) const {
  launch(shape, args, device_->backend->default_launch_timeout());
}

void Kernel::launch(Launch shape, std::span<const Argument> args, std::chrono::nanoseconds timeout) const {
  DeviceImpl& device = *device_;
  device.collect();
  // One command buffer kept for these calls; a new one while it still runs
  // (after a timeout).
  if (!device.direct || device.direct->running()) device.direct = device.new_command_buffer();
  detail::CommandBufferImpl& commands = *device.direct;
  commands.clear();
  detail::Command command;
  command.type = detail::Command::Type::Launch;
  command.module = std::shared_ptr<ModuleImpl>(impl_, impl_->module());
  command.kernel = impl_;
  std::optional<Sha256Digest> tuning;
  const LaunchChoice choice = impl_->choose(device, shape, &tuning);
  command.launch = impl_->bind(device, detail::KernelImpl::with_choice(shape, choice), args);
  impl_->check(command.launch);
  commands.commands.push_back(std::move(command));
  commands.launches = 1;
  std::shared_ptr<detail::SubmissionState> submission = commands.submit();
  submission->direct = true;
  // A tuning launch is timed from its submission (recording and pipeline
  // warm-ups are behind it) until it has finished, once: it is the user's
  // launch, not a repetition.
  const std::chrono::nanoseconds start = tuning ? device.tuner->clock() : std::chrono::nanoseconds(0);
  detail::Access::submission(device_, std::move(submission)).wait(timeout);
  if (tuning) device.tuner->report(*tuning, choice.workgroup_size[0], shape.n, device.tuner->clock() - start);
}

LaunchChoice Kernel::launch_shape(const Launch& launch) const { return impl_->choose(*device_, launch, nullptr); }

// ------------------------------------------------------------------ Module

Module::Module(std::shared_ptr<DeviceImpl> device, std::shared_ptr<ModuleImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;
Module::~Module() = default;

static ModuleImpl& live(const std::shared_ptr<ModuleImpl>& impl) {
  if (!impl) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Module");
  return *impl;
}

KernelSource Module::source() const { return live(impl_).source; }

Kernel Module::kernel(std::string_view name) {
  detail::KernelImpl& kernel = detail::kernel_of(live(impl_), name);
  // Aliasing: the handle keeps the module (which owns the kernel) alive.
  return Kernel(device_, std::shared_ptr<detail::KernelImpl>(impl_, &kernel));
}

std::vector<KernelInterface> Module::kernels() const { return live(impl_).interfaces; }

// ------------------------------------------------------------------ calls

namespace {

wasm::ValType wasm_type(ScalarType type) {
  switch (type) {
    case ScalarType::I32:
    case ScalarType::U32: return wasm::ValType::I32;
    case ScalarType::I64:
    case ScalarType::U64: return wasm::ValType::I64;
    case ScalarType::F32: return wasm::ValType::F32;
    case ScalarType::F64: return wasm::ValType::F64;
  }
  return wasm::ValType::I32;
}

ScalarType scalar_type(wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I64: return ScalarType::I64;
    case wasm::ValType::F32: return ScalarType::F32;
    case wasm::ValType::F64: return ScalarType::F64;
    default: return ScalarType::I32;
  }
}

}  // namespace

std::vector<CallResult> Module::call(std::string_view function, std::span<const std::vector<Value>> tuples,
                                     std::optional<std::chrono::nanoseconds> timeout) {
  std::vector<Call> calls;
  calls.reserve(tuples.size());
  for (const std::vector<Value>& args : tuples) calls.push_back(Call{std::string(function), args});
  return call(calls, timeout);
}

FunctionInfo Module::function_info(std::string_view function) {
  ModuleImpl& module = live(impl_);
  if (!module.wasm)
    detail::raise(ErrorKind::Unsupported, "a SPIR-V module has no exported functions to call (only kernels)");
  const spirv::CallInfo* info = detail::check(module.wasm->call_info(function), ErrorKind::Compile);
  FunctionInfo out;
  for (wasm::ValType type : info->params) out.params.push_back(scalar_type(type));
  for (wasm::ValType type : info->results) out.results.push_back(scalar_type(type));
  out.has_side_effects = info->has_side_effects;
  return out;
}

std::vector<CallResult> Module::call(std::span<const Call> calls, std::optional<std::chrono::nanoseconds> timeout) {
  ModuleImpl& module = live(impl_);
  if (!module.wasm)
    detail::raise(ErrorKind::Unsupported, "a SPIR-V module has no exported functions to call (only kernels)");
  std::vector<device::CallRequest> requests;
  requests.reserve(calls.size());
  for (const Call& call : calls) {
    device::CallRequest request{call.function, {}};
    for (const Value& v : call.args) request.args.push_back(device::CallValue{wasm_type(v.type), v.bits});
    requests.push_back(std::move(request));
  }
  device_->collect();
  std::vector<device::CallResult> results =
      detail::check(module.wasm->call(requests, timeout.value_or(device_->backend->default_launch_timeout())),
                    ErrorKind::InvalidArgument);
  std::vector<CallResult> out;
  out.reserve(results.size());
  for (const device::CallResult& result : results) {
    CallResult converted;
    converted.trapped = result.trapped;
    if (result.trapped) converted.trap = abi::to_string(result.trap);
    for (const device::CallValue& v : result.values) converted.values.push_back(Value{scalar_type(v.type), v.bits});
    out.push_back(std::move(converted));
  }
  return out;
}

// ------------------------------------------------------------------ loading

Module Device::load(std::span<const uint8_t> bytes, const ModuleOptions& options) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  if (reflect::is_spirv(bytes))
    return load_spirv(detail::check(reflect::spirv_words(bytes), ErrorKind::Compile), options);
  if (bytes.size() < 4 || bytes[0] != 0x00 || bytes[1] != 'a' || bytes[2] != 's' || bytes[3] != 'm')
    detail::raise(ErrorKind::Compile,
                  "neither a wasm module (\\0asm) nor SPIR-V (0x07230203): the first bytes "
                  "are not a known magic number");
  spirv::CompileOptions compile;
  compile.float_mode =
      options.float_mode == ModuleOptions::FloatMode::Fast ? spirv::FloatMode::Fast : spirv::FloatMode::Exact;
  if (options.max_call_depth) compile.max_call_depth = options.max_call_depth;
  if (std::optional<uint64_t> budget = options.inline_budget ? options.inline_budget : environment::inline_budget())
    compile.inline_budget = *budget;
  std::unique_ptr<device::BackendModule> module =
      detail::check(options.imported_globals.empty()
                        ? impl_->backend->load_wasm(bytes, compile)
                        : impl_->backend->load_wasm_with_globals(bytes, compile, options.imported_globals),
                    ErrorKind::Compile);
  if (module->wasm().start && !module->runs_start_function()) {
    const uint32_t start = *module->wasm().start;
    detail::raise(ErrorKind::Unsupported, "the start function '" + module->wasm().function_name(start) +
                                              "' (function " + std::to_string(start) +
                                              ") cannot run on this device, so the module cannot be instantiated");
  }
  auto impl = std::make_shared<ModuleImpl>();
  impl->device = impl_.get();
  impl->source = KernelSource::Wasm;
  impl->interfaces = detail::check(reflect::wasm_interfaces(module->wasm()), ErrorKind::Compile);
  impl->wasm = std::move(module);
  if (environment::autotune()) {
    Sha256 identity;
    identity.update(bytes);
    const char* mode = options.float_mode == ModuleOptions::FloatMode::Fast ? "fast" : "exact";
    const std::string options_text = std::string(mode) + " " + std::to_string(options.max_call_depth);
    identity.update(options_text);
    impl->identity = identity.finish();
  }
  return Module(impl_, std::move(impl));
}

Module Device::load_file(const std::filesystem::path& path, const ModuleOptions& options) {
  const std::vector<uint8_t> bytes = detail::read_file(path);
  try {
    return load(bytes, options);
  } catch (const Exception& e) {
    if (e.kind() != ErrorKind::Compile) throw;
    throw Exception(e.kind(), path.string() + ": " + e.what());
  }
}

}  // namespace wasmgpu
