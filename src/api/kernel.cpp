// KernelImpl: a kernel's launches handed to its device, with the arguments
// bound by argument.cpp.
#include "api/impl.h"

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

bool KernelImpl::buffer_fits_scalar(const Param& param) const {
  return interface_.source == KernelSource::Wasm && !has_metadata_ && param.kind == ParamKind::Scalar &&
         param.scalar == ScalarType::I32;
}

}  // namespace wasmgpu::detail
