// The Vulkan implementation of device::BackendModule over runtime::Module:
// its kernels are runtime::Kernels recorded into VulkanCommandLists.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "device/backend_module.h"
#include "runtime/module.h"

namespace wasmgpu::vulkan {

class VulkanModule : public device::BackendModule {
 public:
  explicit VulkanModule(runtime::Module module) : module_(std::move(module)) {}
  const wasm::Module& wasm() const override { return module_.wasm(); }
  std::span<const wasm::KernelMetadata> kernel_metadata() const override { return module_.kernel_metadata(); }
  Result<device::BackendKernel*> kernel(std::string_view name) override;
  // runtime::Module::load ran it.
  bool runs_start_function() const override { return true; }
  Result<const spirv::CallInfo*> call_info(std::string_view name) override { return module_.call_info(name); }
  Result<std::vector<device::CallResult>> call(std::span<const device::CallRequest> calls,
                                               std::chrono::nanoseconds timeout) override;

 private:
  // Declared first: the kernels refer to its runtime::Kernels.
  runtime::Module module_;
  std::map<std::string, std::unique_ptr<device::BackendKernel>, std::less<>> kernels_;
};

}  // namespace wasmgpu::vulkan
