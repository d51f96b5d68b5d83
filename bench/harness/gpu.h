// The bench's use of the device, through the public API: command buffers
// with GPU timestamps around the work a Recorder records into them, and the
// GLSL twins loaded as foreign SPIR-V (push constants only: every twin takes
// its buffers as device addresses, like the wasm kernels' pointers).
#pragma once

#include <wasmgpu/wasmgpu.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace wasmgpu::bench {

class Staging;

// Records work into a command buffer (auto barriers off: the bench orders
// dependent work with barrier() itself).
using Recorder = std::function<void(CommandBuffer&)>;

// A twin dispatch ready to record: the kernel, its workgroups and its push
// constants split into the kernel's push-constant parameters.
struct TwinLaunch {
  const Kernel* kernel = nullptr;
  std::array<uint32_t, 3> groups = {1, 1, 1};
  std::vector<Argument> args;
  void record(CommandBuffer& commands) const;
};

class Gpu {
 public:
  // Opens the device (an index or part of its name; default as everywhere);
  // `cache` false compiles every kernel afresh (the cpu column's compile times).
  explicit Gpu(const std::optional<std::string>& device, bool cache = true);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  Device& device() { return device_; }
  const DeviceInfo& info() const { return device_.info(); }
  // The cpu device (src/cpu/): no foreign SPIR-V (the GLSL twins), no GPU
  // timestamps (time_ms reads the host's clock: its submissions run on the
  // host's threads and have ended when submit returns).
  bool is_cpu() const { return info().name == "cpu"; }
  // Lavapipe (Mesa's llvmpipe Vulkan driver).
  bool is_lavapipe() const { return info().name.find("llvmpipe") != std::string::npos; }

  // Seconds each wasm kernel took to load and compile (Module load and
  // Module::kernel), in load order: "module/kernel (mode)".
  struct CompileTime {
    std::string kernel;
    bool exact = false;
    double seconds = 0;
  };
  std::vector<CompileTime>& compile_times() { return compile_times_; }
  // Whether KernelSet loads the fast-mode kernels on the cpu device (only
  // exact mode by default: the cpu column's mode).
  bool cpu_fast_kernels = false;

  // A twin's SPIR-V (entry point "main"), loaded once and owned by the Gpu.
  const Kernel& twin(std::span<const uint8_t> spirv);
  // A dispatch of `groups` workgroups of `twin` with the push-constant block
  // `push` (the twin's layout, at most its push_constant_size bytes).
  static TwinLaunch twin_launch(const Kernel& twin, const void* push, uint32_t push_size,
                                std::array<uint32_t, 3> groups);

  // Records `record` into a command buffer, submits it and waits; throws
  // when a wasm launch trapped.
  void run(const Recorder& record);
  // As run(), with GPU timestamps around the recorded work
  // (Submission::gpu_seconds); returns the GPU time in ms. On the cpu
  // device: the host's time for recording, submitting and waiting.
  double time_ms(const Recorder& record);

  // The bench's staging buffer for inputs and checks (made on first use).
  Staging& staging();

 private:
  Device device_;
  std::vector<Module> twins_;
  std::vector<std::unique_ptr<Kernel>> twin_kernels_;
  std::unique_ptr<Staging> staging_;
  std::vector<CompileTime> compile_times_;

  Submission submit(const Recorder& record, bool timed);
};

}  // namespace wasmgpu::bench
