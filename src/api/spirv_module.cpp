// Foreign SPIR-V modules (GLSL, HLSL, Slang, rust-gpu) behind the same
// Module / Kernel / Argument API as wasm: the KernelImpl backend over
// runtime::SpirvKernel, with interfaces from reflect::reflect_spirv.
#include "api/impl.h"
#include "reflect/spirv_reflect.h"
#include "runtime/spirv_kernel.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace detail {

namespace {

// A dispatch recorded with its descriptor sets; its push constants are in
// the command buffer, so new scalars need a new recording.
class SpirvRecorded : public RecordedItem {
 public:
  explicit SpirvRecorded(runtime::SpirvBindings bindings) : bindings_(std::move(bindings)) {}
  std::optional<runtime::TrapReport> trap() const override { return std::nullopt; }
  bool rebind(const BoundLaunch&) override { return false; }

 private:
  runtime::SpirvBindings bindings_;
};

class SpirvKernelImpl : public KernelImpl {
 public:
  SpirvKernelImpl(ModuleImpl* module, runtime::SpirvKernel kernel)
      : KernelImpl(module, kernel.interface()), kernel_(std::move(kernel)) {}

  void check(const BoundLaunch& bound) override {
    const std::vector<runtime::SpirvArg> list = args(bound);
    detail::check(kernel_.bind(list), ErrorKind::InvalidArgument);
    detail::check(kernel_.workgroup_size(requested_size(bound.shape)), ErrorKind::InvalidArgument);
    launch_of(bound.shape);
  }

  std::unique_ptr<RecordedItem> record(VkCommandBuffer cmd, const BoundLaunch& bound,
                                       runtime::LaunchArena&) override {
    const std::vector<runtime::SpirvArg> list = args(bound);
    runtime::SpirvBindings bindings =
        detail::check(kernel_.record(cmd, launch_of(bound.shape), list), ErrorKind::InvalidArgument);
    return std::make_unique<SpirvRecorded>(std::move(bindings));
  }

  void extra_accesses(std::vector<AccessedResource>&) const override {}
  bool buffer_fits_scalar(const Param&) const override { return false; }

 private:
  // The launch's workgroup size: the shader's declared size, with a
  // specialisable x at the default (64) unless the launch asks otherwise;
  // non-zero dimensions of the launch's size replace these.
  std::array<uint32_t, 3> requested_size(const Launch& shape) const {
    std::array<uint32_t, 3> size = kernel_.default_workgroup_size();
    for (int d = 0; d < 3; ++d)
      if (shape.workgroup_size[d]) size[d] = shape.workgroup_size[d];
    return size;
  }

  runtime::SpirvLaunch launch_of(const Launch& shape) const {
    runtime::SpirvLaunch launch;
    launch.workgroup_size = requested_size(shape);
    if (shape.groups) {
      launch.groups = *shape.groups;
      return launch;
    }
    // 1-D: enough workgroups for n invocations; the shader checks its bounds.
    const std::array<uint32_t, 3> size = *launch.workgroup_size;
    launch.groups = {uint32_t((uint64_t(shape.n) + size[0] - 1) / size[0]), 1, 1};
    if (shape.n == 0)
      raise(ErrorKind::InvalidArgument, "kernel '" + interface_.name +
                                            "': a SPIR-V kernel cannot launch 0 invocations (it always runs whole workgroups)");
    return launch;
  }

  std::vector<runtime::SpirvArg> args(const BoundLaunch& bound) const {
    std::vector<runtime::SpirvArg> out;
    out.reserve(bound.args.size());
    for (size_t i = 0; i < bound.args.size(); ++i) {
      const Param& param = interface_.params[i];
      const BoundArg& arg = bound.args[i];
      if (arg.buffer) {
        out.push_back(runtime::SpirvArg::buffer(*arg.buffer->buffer));
      } else if (param.kind == ParamKind::Scalar) {
        out.push_back(runtime::SpirvArg::scalar(param.scalar, arg.bits));
      } else if (param.kind == ParamKind::Bytes || param.kind == ParamKind::UniformBuffer) {
        out.push_back(runtime::SpirvArg::bytes(arg.bytes.data(), arg.bytes.size()));
      } else if (arg.image && param.kind != ParamKind::CombinedImageSampler) {
        // Images stay in GENERAL between commands (runtime/image.h).
        out.push_back(runtime::SpirvArg::image(arg.image->image->view(), VK_IMAGE_LAYOUT_GENERAL));
      } else if (arg.sampler) {
        out.push_back(runtime::SpirvArg::sampler(arg.sampler->sampler->vk_sampler()));
      } else {
        raise(ErrorKind::Unsupported, "kernel '" + interface_.name + "', parameter '" + param.name +
                                          "': combined image samplers (GLSL sampler2D) are not supported yet; "
                                          "declare a texture2D and a sampler");
      }
    }
    return out;
  }

  runtime::SpirvKernel kernel_;
};

}  // namespace

std::unique_ptr<KernelImpl> make_spirv_kernel(ModuleImpl& module, std::string_view name) {
  const KernelInterface* interface = nullptr;
  for (const KernelInterface& k : module.interfaces)
    if (k.name == name) interface = &k;
  runtime::SpirvKernel kernel =
      check_kernel_load(runtime::SpirvKernel::create(module.device->state(), module.spirv, *interface));
  return std::make_unique<SpirvKernelImpl>(&module, std::move(kernel));
}

}  // namespace detail

Module Device::load_spirv(std::span<const uint32_t> words, const ModuleOptions&) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  reflect::SpirvReflection reflection = detail::check(reflect::reflect_spirv(words), ErrorKind::Compile);
  auto impl = std::make_shared<detail::ModuleImpl>();
  impl->device = impl_.get();
  impl->source = KernelSource::Spirv;
  impl->interfaces = std::move(reflection.kernels);
  impl->spirv.assign(words.begin(), words.end());
  impl->make_kernel = detail::make_spirv_kernel;
  return Module(impl_, std::move(impl));
}

}  // namespace wasmgpu
