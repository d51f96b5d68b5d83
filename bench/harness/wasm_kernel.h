// A wasm kernel of the bench, loaded in one float mode through the public
// API, whose launches are recorded into the bench's command buffers between
// their timestamps.
#pragma once

#include <chrono>
#include <span>
#include <string>
#include <vector>

#include "harness/gpu.h"

namespace wasmgpu::bench {

// One launch with its shape and arguments fixed, recorded as often as
// needed; each recording's trap record is checked when its submission is
// waited for (Submission::wait throws TrapError).
class WasmLaunch {
 public:
  WasmLaunch(const Kernel& kernel, Launch shape, std::vector<Argument> args);
  // Without a barrier before: the bench orders launches itself.
  void record(CommandBuffer& commands) const;
  const Launch& shape() const { return shape_; }
  const std::vector<Argument>& args() const { return args_; }

 private:
  const Kernel& kernel_;
  Launch shape_;
  std::vector<Argument> args_;
};

class WasmKernel {
 public:
  // Loads `wasm` and compiles `export_name` in `mode` (throws on failure);
  // the time both took goes into gpu.compile_times().
  WasmKernel(Gpu& gpu, std::span<const uint8_t> wasm, const std::string& export_name, ModuleOptions::FloatMode mode);

  // A launch of a grid of `groups` workgroups of `size`.
  WasmLaunch prepare(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> size, std::vector<Argument> args) const;
  const Kernel& kernel() const { return kernel_; }

 private:
  std::chrono::steady_clock::time_point start_;  // first: set before the load
  Module module_;
  Kernel kernel_;
};

}  // namespace wasmgpu::bench
