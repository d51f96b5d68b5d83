// A wasm kernel of the bench, loaded in one float mode, whose launches are
// recorded (runtime::Kernel::record) into the bench's command buffer between
// its timestamps.
#pragma once

#include <volk.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/gpu.h"
#include "runtime/grid.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "runtime/recorded_launch.h"
#include "spirv/float_mode.h"

namespace wasmgpu::bench {

// One launch with its shape and arguments fixed, recorded as often as needed.
// Recording writes a LaunchBlock into the Gpu's arena; the Gpu checks the
// trap record after the submission's wait.
class WasmLaunch {
 public:
  WasmLaunch(Gpu& gpu, runtime::Kernel& kernel, runtime::LaunchShape shape, std::vector<runtime::Arg> args);
  // Without a barrier before: the bench orders launches itself (Gpu::barrier).
  void record(VkCommandBuffer cmd);

 private:
  Gpu& gpu_;
  runtime::Kernel& kernel_;
  runtime::LaunchShape shape_;
  std::vector<runtime::Arg> args_;
};

class WasmKernel {
 public:
  // Loads `wasm` and compiles `export_name` in `mode` (throws on failure).
  WasmKernel(Gpu& gpu, std::span<const uint8_t> wasm, std::string export_name, spirv::FloatMode mode);

  WasmLaunch prepare(runtime::Grid grid, runtime::WorkgroupSize size, std::vector<runtime::Arg> args);
  const runtime::Kernel& kernel() const { return *kernel_; }

 private:
  Gpu& gpu_;
  runtime::Module module_;
  runtime::Kernel* kernel_ = nullptr;
};

}  // namespace wasmgpu::bench
