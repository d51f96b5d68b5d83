// Modules, kernels and loading, over runtime::Module; the wasm kernel
// backend of KernelImpl.
#include "wasmgpu/module.hpp"

#include <fstream>
#include <iterator>

#include "api/impl.h"
#include "reflect/spirv_reflect.h"
#include "reflect/wasm_interface.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace detail {

namespace {

runtime::LaunchShape runtime_shape(const Launch& launch) {
  if (launch.groups) {
    const auto& g = *launch.groups;
    const auto& w = launch.workgroup_size;
    return runtime::LaunchShape::of_grid(runtime::Grid{g[0], g[1], g[2]},
                                         runtime::WorkgroupSize{w[0], w[1] ? w[1] : 1, w[2] ? w[2] : 1});
  }
  return runtime::LaunchShape::linear(launch.n, launch.workgroup_size[0]);
}

runtime::Arg runtime_arg(const Param& param, const BoundArg& arg) {
  if (arg.buffer) return runtime::Arg(*arg.buffer->buffer);
  if (arg.image) return runtime::Arg(*arg.image->image);        // its handle
  if (arg.sampler) return runtime::Arg(*arg.sampler->sampler);
  switch (param.scalar) {
    case ScalarType::I32:
    case ScalarType::U32: return runtime::Arg(uint32_t(arg.bits));
    case ScalarType::I64:
    case ScalarType::U64: return runtime::Arg(uint64_t(arg.bits));
    case ScalarType::F32: {
      float value;
      const uint32_t bits = uint32_t(arg.bits);
      std::memcpy(&value, &bits, 4);
      return runtime::Arg(value);
    }
    case ScalarType::F64: {
      double value;
      std::memcpy(&value, &arg.bits, 8);
      return runtime::Arg(value);
    }
  }
  return runtime::Arg(uint32_t(arg.bits));
}

class WasmRecorded : public RecordedItem {
 public:
  WasmRecorded(runtime::RecordedLaunch launch, const KernelInterface& interface)
      : launch_(std::move(launch)), interface_(interface) {}
  std::optional<runtime::TrapReport> trap() const override { return launch_.trap(); }
  bool rebind(const BoundLaunch& bound) override {
    for (size_t i = 0; i < bound.args.size(); ++i)
      check(launch_.set_arg(i, runtime_arg(interface_.params[i], bound.args[i])), ErrorKind::InvalidArgument);
    launch_.reset_trap();
    // Arguments copied into the push constants are part of the recording.
    return launch_.push_copy_current();
  }

 private:
  runtime::RecordedLaunch launch_;
  const KernelInterface& interface_;
};

class WasmKernel : public KernelImpl {
 public:
  WasmKernel(ModuleImpl* module, KernelInterface interface, runtime::Kernel* kernel, bool has_metadata)
      : KernelImpl(module, std::move(interface)), kernel_(kernel), has_metadata_(has_metadata) {}

  std::vector<runtime::Arg> args(const BoundLaunch& bound) const {
    std::vector<runtime::Arg> out;
    out.reserve(bound.args.size());
    for (size_t i = 0; i < bound.args.size(); ++i) out.push_back(runtime_arg(interface_.params[i], bound.args[i]));
    return out;
  }

  void check(const BoundLaunch& bound) override {
    const std::vector<runtime::Arg> list = args(bound);
    detail::check(kernel_->check_launch(runtime_shape(bound.shape), list), ErrorKind::InvalidArgument);
  }

  std::unique_ptr<RecordedItem> record(VkCommandBuffer cmd, const BoundLaunch& bound,
                                       runtime::LaunchArena& arena) override {
    const std::vector<runtime::Arg> list = args(bound);
    runtime::RecordOptions options;
    options.barrier_before = false;  // the command buffer orders launches
    options.host_barrier_after = false;
    runtime::RecordedLaunch recorded =
        detail::check(kernel_->record(cmd, runtime_shape(bound.shape), list, arena, options),
                      ErrorKind::InvalidArgument);
    return std::make_unique<WasmRecorded>(std::move(recorded), interface_);
  }

  void extra_accesses(std::vector<AccessedResource>& out) const override {
    const spirv::KernelInfo& info = kernel_->info();
    if (info.memory_bytes > 0 || info.uses_instance_state) out.push_back({module_, true});
  }

  bool buffer_fits_scalar(const Param& param) const override {
    return !has_metadata_ && param.kind == ParamKind::Scalar && param.scalar == ScalarType::I32;
  }

 private:
  runtime::Kernel* kernel_;
  bool has_metadata_;
};

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
    raise(ErrorKind::NotFound, "the module has no kernel named '" + std::string(name) + "' (its kernels: " +
                                   (names.empty() ? "none" : names) + ")");
  }
  std::unique_ptr<KernelImpl> kernel;
  if (module.source == KernelSource::Wasm) {
    runtime::Kernel* compiled = check_kernel_load(module.wasm->kernel(name));
    bool has_metadata = false;
    for (const wasm::KernelMetadata& m : module.wasm->kernel_metadata()) has_metadata |= m.kernel == name;
    kernel = std::make_unique<WasmKernel>(&module, *interface, compiled, has_metadata);
  } else {
    if (!module.make_kernel) raise(ErrorKind::Unsupported, "this build cannot launch SPIR-V kernels");
    kernel = module.make_kernel(module, name);
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
  command.launch = impl_->bind(device, shape, args);
  impl_->check(command.launch);
  commands.commands.push_back(std::move(command));
  commands.launches = 1;
  std::shared_ptr<detail::SubmissionState> submission = commands.submit();
  submission->direct = true;
  detail::Access::submission(device_, std::move(submission)).wait(runtime::default_launch_timeout());
}

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

// ------------------------------------------------------------------ loading

Module Device::load(std::span<const uint8_t> bytes, const ModuleOptions& options) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  if (reflect::is_spirv(bytes))
    return load_spirv(detail::check(reflect::spirv_words(bytes), ErrorKind::Compile), options);
  if (bytes.size() < 4 || bytes[0] != 0x00 || bytes[1] != 'a' || bytes[2] != 's' || bytes[3] != 'm')
    detail::raise(ErrorKind::Compile, "neither a wasm module (\\0asm) nor SPIR-V (0x07230203): the first bytes "
                                      "are not a known magic number");
  spirv::CompileOptions compile;
  compile.float_mode = options.float_mode == ModuleOptions::FloatMode::Fast ? spirv::FloatMode::Fast
                                                                            : spirv::FloatMode::Exact;
  if (options.max_call_depth) compile.max_call_depth = options.max_call_depth;
  runtime::Module module = detail::check(runtime::Module::load(impl_->device, bytes, compile), ErrorKind::Compile);
  auto impl = std::make_shared<ModuleImpl>();
  impl->device = impl_.get();
  impl->source = KernelSource::Wasm;
  impl->interfaces = detail::check(reflect::wasm_interfaces(module.wasm()), ErrorKind::Compile);
  impl->wasm.emplace(std::move(module));
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
