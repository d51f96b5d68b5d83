// A wasm kernel of the bench, loaded in one float mode, whose launches are
// recorded into the bench's command buffer between its timestamps.
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/grid.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "spirv/float_mode.h"

namespace wasmgpu::bench {

// One prepared launch: kernel, grid, workgroup size and arguments fixed, so
// that it can be recorded many times.
class WasmLaunch {
 public:
  virtual ~WasmLaunch() = default;
  virtual void record(VkCommandBuffer cmd) = 0;
  // Throws when an invocation of a recorded launch trapped (after the
  // command buffer ran).
  virtual void check_traps() = 0;
};

class WasmKernel {
 public:
  // Loads `wasm` and compiles `export_name` in `mode` (throws on failure).
  WasmKernel(runtime::Device& device, std::span<const uint8_t> wasm, std::string export_name,
             spirv::FloatMode mode);
  ~WasmKernel();
  WasmKernel(const WasmKernel&) = delete;
  WasmKernel& operator=(const WasmKernel&) = delete;

  std::unique_ptr<WasmLaunch> prepare(runtime::Grid grid, runtime::WorkgroupSize size,
                                      std::vector<runtime::Arg> args);
  const runtime::Kernel& kernel() const { return *kernel_; }

 private:
  runtime::Device& device_;
  runtime::Module module_;
  runtime::Kernel* kernel_ = nullptr;
};

}  // namespace wasmgpu::bench
