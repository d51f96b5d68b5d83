// SPIR-V dispatches: the workgroup size and group count of a launch, the
// descriptor sets recorded with it.
#include "vulkan/vulkan_spirv_kernel.h"

#include "runtime/spirv_kernel.h"
#include "vulkan/vulkan_args.h"
#include "vulkan/vulkan_command_list.h"

namespace wasmgpu::vulkan {

namespace {

// A dispatch recorded with its descriptor sets; its push constants are in
// the command buffer, so new scalars need a new recording.
class SpirvRecordedLaunch : public device::BackendRecordedLaunch {
 public:
  explicit SpirvRecordedLaunch(runtime::SpirvBindings bindings) : bindings_(std::move(bindings)) {}
  std::optional<device::TrapReport> trap() const override { return std::nullopt; }
  Result<bool> rebind(std::span<const device::BackendArg>) override { return false; }

 private:
  runtime::SpirvBindings bindings_;
};

class SpirvKernel : public device::BackendKernel {
 public:
  explicit SpirvKernel(runtime::SpirvKernel kernel) : kernel_(std::move(kernel)) {}

  Status check(const device::LaunchShape& shape, std::span<const device::BackendArg> args) override {
    const std::vector<runtime::SpirvArg> list = spirv_args(args);
    WASMGPU_TRY(kernel_.bind(list));
    WASMGPU_TRY(kernel_.workgroup_size(requested_size(shape)));
    WASMGPU_TRY(launch_of(shape));
    return {};
  }

  Result<std::unique_ptr<device::BackendRecordedLaunch>> record(device::BackendCommandList& list,
                                                                const device::LaunchShape& shape,
                                                                std::span<const device::BackendArg> args) override {
    const std::vector<runtime::SpirvArg> arg_list = spirv_args(args);
    WASMGPU_ASSIGN_OR_RETURN(runtime::SpirvLaunch launch, launch_of(shape));
    WASMGPU_ASSIGN_OR_RETURN(runtime::SpirvBindings bindings,
                             kernel_.record(static_cast<VulkanCommandList&>(list).cmd(), launch, arg_list));
    return std::unique_ptr<device::BackendRecordedLaunch>(std::make_unique<SpirvRecordedLaunch>(std::move(bindings)));
  }

  bool uses_module_state() const override { return false; }

 private:
  // The launch's workgroup size: the shader's declared size, with a
  // specialisable x at the default (64) unless the launch asks otherwise;
  // non-zero dimensions of the launch's size replace these.
  std::array<uint32_t, 3> requested_size(const device::LaunchShape& shape) const {
    std::array<uint32_t, 3> size = kernel_.default_workgroup_size();
    for (int d = 0; d < 3; ++d)
      if (shape.workgroup_size[d]) size[d] = shape.workgroup_size[d];
    return size;
  }

  Result<runtime::SpirvLaunch> launch_of(const device::LaunchShape& shape) const {
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
      return make_error(ErrorCode::InvalidArgument,
                        "kernel '" + kernel_.name() +
                            "': a SPIR-V kernel cannot launch 0 invocations (it always runs whole workgroups)");
    return launch;
  }

  runtime::SpirvKernel kernel_;
};

}  // namespace

Result<std::unique_ptr<device::BackendKernel>> create_spirv_kernel(runtime::DeviceState& state,
                                                                   std::span<const uint32_t> words,
                                                                   const KernelInterface& interface) {
  WASMGPU_ASSIGN_OR_RETURN(runtime::SpirvKernel kernel, runtime::SpirvKernel::create(state, words, interface));
  return std::unique_ptr<device::BackendKernel>(std::make_unique<SpirvKernel>(std::move(kernel)));
}

}  // namespace wasmgpu::vulkan
