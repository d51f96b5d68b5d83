// Wasm kernels on Vulkan: checks and recordings of runtime::Kernel, and
// their trap records.
#include "vulkan/vulkan_module.h"

#include "runtime/kernel.h"
#include "vulkan/vulkan_args.h"
#include "vulkan/vulkan_command_list.h"
#include "wasm/code_site.h"

namespace wasmgpu::vulkan {

namespace {

class WasmRecordedLaunch : public device::BackendRecordedLaunch {
 public:
  WasmRecordedLaunch(runtime::RecordedLaunch launch, const wasm::Module& module)
      : launch_(std::move(launch)), module_(module) {}
  std::optional<device::TrapReport> trap() const override {
    const std::optional<runtime::TrapReport> report = launch_.trap();
    if (!report) return std::nullopt;
    device::TrapReport out{report->trapped_invocations, report->kind, report->invocation, {}, abi::kNoTrapIndex};
    if (report->site) {
      out.site = *report->site == abi::kNoTrapSite ? std::string("the shader's call dispatch")
                                                   : wasm::describe_code_site(module_, *report->site);
      if (report->access_address != abi::kNoTrapAddress)
        out.site += ", " + wasm::describe_access(report->access_address, report->access_bytes);
      out.site_invocation = report->site_invocation;
    }
    return out;
  }
  Result<bool> rebind(std::span<const device::BackendArg> args) override {
    for (size_t i = 0; i < args.size(); ++i) WASMGPU_TRY(launch_.set_arg(i, runtime_arg(args[i])));
    launch_.reset_trap();
    // Arguments copied into the push constants are part of the recording.
    return launch_.push_copy_current();
  }

 private:
  runtime::RecordedLaunch launch_;
  const wasm::Module& module_;  // the kernel's module, which outlives its recorded launches
};

class WasmKernel : public device::BackendKernel {
 public:
  WasmKernel(runtime::Kernel& kernel, const wasm::Module& module) : kernel_(kernel), module_(module) {}

  Status check(const device::LaunchShape& shape, std::span<const device::BackendArg> args) override {
    const std::vector<runtime::Arg> list = runtime_args(args);
    return kernel_.check_launch(runtime_shape(shape), list);
  }

  Result<std::unique_ptr<device::BackendRecordedLaunch>> record(device::BackendCommandList& list,
                                                                const device::LaunchShape& shape,
                                                                std::span<const device::BackendArg> args) override {
    auto& vulkan_list = static_cast<VulkanCommandList&>(list);
    const std::vector<runtime::Arg> arg_list = runtime_args(args);
    runtime::RecordOptions options;
    options.barrier_before = false;  // the command list orders launches
    options.host_barrier_after = false;
    WASMGPU_ASSIGN_OR_RETURN(runtime::RecordedLaunch recorded, kernel_.record(vulkan_list.cmd(), runtime_shape(shape),
                                                                              arg_list, vulkan_list.arena(), options));
    return std::unique_ptr<device::BackendRecordedLaunch>(
        std::make_unique<WasmRecordedLaunch>(std::move(recorded), module_));
  }

  bool uses_module_state() const override {
    const spirv::KernelInfo& info = kernel_.info();
    return info.memory_bytes > 0 || info.uses_instance_state;
  }

 private:
  runtime::Kernel& kernel_;
  const wasm::Module& module_;
};

}  // namespace

Result<device::BackendKernel*> VulkanModule::kernel(std::string_view name) {
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second.get();
  WASMGPU_ASSIGN_OR_RETURN(runtime::Kernel * compiled, module_.kernel(name));
  auto kernel = std::make_unique<WasmKernel>(*compiled, module_.wasm());
  return kernels_.emplace(std::string(name), std::move(kernel)).first->second.get();
}

Result<std::vector<device::CallResult>> VulkanModule::call(std::span<const device::CallRequest> calls,
                                                           std::chrono::nanoseconds timeout) {
  std::vector<runtime::CallRequest> requests;
  requests.reserve(calls.size());
  for (const device::CallRequest& call : calls) {
    runtime::CallRequest request{call.export_name, {}};
    for (const device::CallValue& v : call.args) request.args.push_back(runtime::Value{v.type, v.bits});
    requests.push_back(std::move(request));
  }
  runtime::LaunchOptions options;
  options.timeout = timeout;
  WASMGPU_ASSIGN_OR_RETURN(std::vector<runtime::CallResult> results, module_.call(requests, options));
  std::vector<device::CallResult> out;
  out.reserve(results.size());
  for (const runtime::CallResult& result : results) {
    device::CallResult converted{result.trapped, result.trap, {}, {}};
    if (result.trap_site) converted.trap_site = wasm::describe_code_site(module_.wasm(), *result.trap_site);
    if (result.trap_site && result.trap_address != abi::kNoTrapAddress)
      converted.trap_site += ", " + wasm::describe_access(result.trap_address, result.trap_bytes);
    for (const runtime::Value& v : result.values) converted.values.push_back(device::CallValue{v.type, v.bits});
    out.push_back(std::move(converted));
  }
  return out;
}

}  // namespace wasmgpu::vulkan
