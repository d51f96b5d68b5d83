// A loaded wasm module on one device: its decoded form and its kernels,
// compiled on first use.
#pragma once

#include <chrono>
#include <span>
#include <string_view>
#include <vector>

#include "device/backend_kernel.h"
#include "device/function_call.h"
#include "spirv/compiler.h"
#include "support/result.h"
#include "wasm/kernel_metadata.h"
#include "wasm/module.h"

namespace wasmgpu::device {

class BackendModule {
 public:
  virtual ~BackendModule() = default;
  virtual const wasm::Module& wasm() const = 0;
  virtual std::span<const wasm::KernelMetadata> kernel_metadata() const = 0;
  // The kernel exported as `name`, owned by the module.
  virtual Result<BackendKernel*> kernel(std::string_view name) = 0;
  // Whether loading ran the module's start function (DeviceBackend::load_wasm
  // runs it once, before returning, on devices that can; a start function
  // that cannot run or traps fails the load). The API refuses a module with
  // a start function from a device that answers false, never skipping it.
  virtual bool runs_start_function() const { return false; }
  // Runs `calls` in one launch, waits up to `timeout` and returns each
  // call's results or trap. Fails without running anything on an export
  // that cannot be called or arguments of the wrong count or types. Devices
  // without vectorised calls fail with Unsupported.
  // The compiled facts of a callable export (parameter and result types,
  // side effects); the reason when it cannot be called.
  virtual Result<const spirv::CallInfo*> call_info(std::string_view name) {
    (void)name;
    return make_error(ErrorCode::Unsupported, "this device cannot call exported functions");
  }
  virtual Result<std::vector<CallResult>> call(std::span<const CallRequest> calls, std::chrono::nanoseconds timeout) {
    (void)calls, (void)timeout;
    return make_error(ErrorCode::Unsupported, "this device cannot call exported functions");
  }
};

}  // namespace wasmgpu::device
