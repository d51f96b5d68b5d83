// A loaded wasm module on one device: its decoded form and its kernels,
// compiled on first use.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "device/backend_kernel.h"
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
};

}  // namespace wasmgpu::device
