// KernelImpl: a kernel's launches handed to its device, with the arguments
// bound by argument.cpp.
#include "api/impl.h"

#include "support/environment.h"

namespace wasmgpu::detail {

namespace {

device::LaunchShape device_shape(const Launch& launch) {
  device::LaunchShape shape;
  shape.n = launch.n;
  shape.workgroup_size = launch.workgroup_size;
  shape.groups = launch.groups;
  return shape;
}

}  // namespace

std::vector<device::BackendArg> KernelImpl::device_args(const BoundLaunch& launch) const {
  std::vector<device::BackendArg> out;
  out.reserve(launch.args.size());
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const Param& param = interface_.params[i];
    const BoundArg& arg = launch.args[i];
    device::BackendArg converted;
    converted.scalar = param.scalar;
    if (arg.buffer) {
      converted.kind = device::BackendArg::Kind::Buffer;
      converted.buffer = arg.buffer->buffer.get();
    } else if (arg.image) {
      converted.kind = device::BackendArg::Kind::Image;
      converted.image = arg.image->image.get();
    } else if (arg.sampler) {
      converted.kind = device::BackendArg::Kind::Sampler;
      converted.sampler = arg.sampler->sampler.get();
    } else if (param.kind == ParamKind::Scalar) {
      converted.kind = device::BackendArg::Kind::Scalar;
      converted.bits = arg.bits;
    } else {
      converted.kind = device::BackendArg::Kind::Bytes;
      converted.bytes = arg.bytes;
    }
    out.push_back(converted);
  }
  return out;
}

void KernelImpl::check(const BoundLaunch& launch) {
  if (interface_.source == KernelSource::Spirv)
    for (const Param& param : interface_.params)
      if (param.kind == ParamKind::CombinedImageSampler)
        raise(ErrorKind::Unsupported, "kernel '" + interface_.name + "', parameter '" + param.name +
                                          "': combined image samplers (GLSL sampler2D) are not supported yet; "
                                          "declare a texture2D and a sampler");
  const std::vector<device::BackendArg> args = device_args(launch);
  detail::check(backend_->check(device_shape(launch.shape), args), ErrorKind::InvalidArgument);
}

std::unique_ptr<device::BackendRecordedLaunch> KernelImpl::record(device::BackendCommandList& list,
                                                                  const BoundLaunch& launch) {
  const std::vector<device::BackendArg> args = device_args(launch);
  return detail::check(backend_->record(list, device_shape(launch.shape), args), ErrorKind::InvalidArgument);
}

bool KernelImpl::rebind(device::BackendRecordedLaunch& recorded, const BoundLaunch& launch) const {
  const std::vector<device::BackendArg> args = device_args(launch);
  return detail::check(recorded.rebind(args), ErrorKind::InvalidArgument);
}

void KernelImpl::extra_accesses(std::vector<AccessedResource>& out) const {
  if (backend_->uses_module_state()) out.push_back({module_, true});
}

const SizeDependence& KernelImpl::size_dependence() {
  if (!size_dependence_) {
    if (interface_.source == KernelSource::Wasm) {
      size_dependence_ = wasm_size_dependence(module_->wasm->wasm(), interface_.name);
    } else {
      // Reflection does not prove yet which builtins a foreign shader reads.
      size_dependence_ = SizeDependence{true, "foreign SPIR-V: not proven independent of the workgroup size", false};
    }
  }
  return *size_dependence_;
}

LaunchChoice KernelImpl::choose(DeviceImpl& device, const Launch& launch, std::optional<Sha256Digest>* tuning) {
  LaunchChoice choice;
  choice.workgroup_size = launch.workgroup_size;
  const SizeDependence& dependence = size_dependence();
  choice.tunable = !dependence.depends;
  const std::string tunable_text = (choice.tunable ? "tunable: " : "not tuned: ") + dependence.reason;
  auto text = [](const std::array<uint32_t, 3>& size) {
    return std::to_string(size[0]) + "x" + std::to_string(std::max(size[1], 1u)) + "x" +
           std::to_string(std::max(size[2], 1u));
  };
  if (launch.workgroup_size[0] != 0) {
    choice.source = LaunchChoice::Source::User;
    choice.reason = text(launch.workgroup_size) + " (set by the launch); " + tunable_text;
    return choice;
  }
  const device::DeviceDescription& description = device.backend->description();
  uint32_t other_dims = 1;
  if (interface_.source == KernelSource::Spirv) {
    const std::array<uint32_t, 3>& declared = interface_.workgroup_size_default;
    if (interface_.workgroup_size || !interface_.workgroup_size_spec_ids[0]) {
      choice.source = LaunchChoice::Source::Kernel;
      choice.workgroup_size = declared;
      choice.reason = text(declared) + " (fixed by the shader); " + tunable_text;
      return choice;
    }
    other_dims = std::max(launch.workgroup_size[1] ? launch.workgroup_size[1] : declared[1], 1u) *
                 std::max(launch.workgroup_size[2] ? launch.workgroup_size[2] : declared[2], 1u);
  }
  if (launch.groups) {
    // A grid's invocation count depends on the size: 64, as launch.hpp says.
    choice.source = LaunchChoice::Source::Heuristic;
    choice.workgroup_size[0] =
        std::min(64u, description.max_workgroup_invocations ? description.max_workgroup_invocations : 64u);
    choice.reason = std::to_string(choice.workgroup_size[0]) +
                    " in x (a grid's default, never chosen for the device); " + tunable_text;
    return choice;
  }
  HeuristicSize heuristic = heuristic_workgroup_size(description, other_dims);
  if (dependence.uses_barriers) {
    // Every invocation of a workgroup must reach the barrier: a 1-D launch
    // must cover whole workgroups. Halve down to the old default of 64, where
    // the launch's own check reports a count that still does not divide.
    const uint32_t first = heuristic.size;
    while (heuristic.size > 64 && launch.n % heuristic.size != 0) heuristic.size /= 2;
    if (heuristic.size != first)
      heuristic.reason += ", halved from " + std::to_string(first) + " to divide n (the kernel waits at barriers)";
  }
  choice.source = LaunchChoice::Source::Heuristic;
  choice.workgroup_size[0] = heuristic.size;
  choice.reason = std::to_string(heuristic.size) + " (heuristic: " + heuristic.reason + "); " + tunable_text;
  if (!choice.tunable) return choice;
  if (!environment::autotune()) {
    choice.reason += "; WASMGPU_AUTOTUNE=0";
    return choice;
  }
  if (!module_->identity) {
    choice.reason += "; the autotuner was off when the module was loaded";
    return choice;
  }
  if (launch.n < kMinTunedInvocations) {
    choice.reason += "; too few invocations to tune (fewer than " + std::to_string(kMinTunedInvocations) + ")";
    return choice;
  }
  const uint32_t klass = size_class(launch.n);
  const Sha256Digest key = device.tuner->key(*module_->identity, interface_.name, klass);
  const std::vector<uint32_t> candidates = tuning_candidates(description, heuristic.size);
  const LaunchTuner::Pick pick = device.tuner->pick(key, candidates);
  choice.workgroup_size[0] = pick.size;
  const std::string class_text = "n in [" + std::to_string(uint64_t(1) << (2 * klass)) + ", " +
                                 std::to_string(uint64_t(1) << (2 * klass + 2)) + ")";
  if (pick.tuning) {
    choice.source = LaunchChoice::Source::Tuning;
    choice.reason = std::to_string(pick.size) + " (autotuning " + class_text +
                    ": this launch times a candidate; the heuristic gives " + std::to_string(heuristic.size) + ", " +
                    heuristic.reason + "); " + tunable_text;
    if (tuning) *tuning = key;
  } else {
    choice.source = LaunchChoice::Source::Tuned;
    choice.reason = std::to_string(pick.size) + " (autotuned for " + class_text +
                    " on this device and driver; the heuristic gives " + std::to_string(heuristic.size) + ", " +
                    heuristic.reason + "); " + tunable_text;
  }
  return choice;
}

Launch KernelImpl::with_choice(const Launch& launch, const LaunchChoice& choice) {
  Launch out = launch;
  if (launch.workgroup_size[0] == 0 && !launch.groups &&
      (choice.source == LaunchChoice::Source::Heuristic || choice.source == LaunchChoice::Source::Tuning ||
       choice.source == LaunchChoice::Source::Tuned))
    out.workgroup_size[0] = choice.workgroup_size[0];
  return out;
}

bool KernelImpl::buffer_fits_scalar(const Param& param) const {
  return interface_.source == KernelSource::Wasm && !has_metadata_ && param.kind == ParamKind::Scalar &&
         param.scalar == ScalarType::I32;
}

}  // namespace wasmgpu::detail

namespace wasmgpu {

const char* to_string(LaunchChoice::Source source) {
  switch (source) {
    case LaunchChoice::Source::User: return "user";
    case LaunchChoice::Source::Kernel: return "kernel";
    case LaunchChoice::Source::Heuristic: return "heuristic";
    case LaunchChoice::Source::Tuning: return "tuning";
    case LaunchChoice::Source::Tuned: return "tuned";
  }
  return "heuristic";
}

}  // namespace wasmgpu
