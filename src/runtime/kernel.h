// A compiled kernel on a Device: its shader module and compute pipelines.
#pragma once

#include <volk.h>

#include <initializer_list>
#include <map>
#include <span>
#include <string>

#include "runtime/buffer.h"
#include "runtime/grid.h"
#include "runtime/launch.h"
#include "runtime/recorded_launch.h"
#include "spirv/compiler.h"
#include "support/result.h"

namespace wasmgpu::runtime {

class Device;
class LaunchArena;
struct DeviceState;

// A kernel ready to launch: SPIR-V that follows abi/launch_abi.h (entry point
// "main", workgroup size from specialization constants 0, 1, 2, the 16-byte
// push constants) and the KernelInfo that describes its parameters, memory
// and stack. Pipelines are created per workgroup size on first use and cached.
//
// Move-only. Must be destroyed before its Device, and before the Buffer given
// as its linear memory.
class Kernel {
 public:
  // `linear_memory` is what the kernel sees at wasm address 0 (its first
  // info.memory_bytes bytes); required when info.memory_bytes > 0. Modules
  // pass their memory; SPIR-V from other sources may pass any Buffer.
  static Result<Kernel> create(Device& device, spirv::CompiledKernel kernel, const Buffer* linear_memory = nullptr);
  static Result<Kernel> create(DeviceState& device, spirv::CompiledKernel kernel, const Buffer* linear_memory);

  // For modules with instance state: launches pass `instance_state` (the
  // device address of the module instance's InstanceState) in the
  // LaunchBlock; required when kernel.info.uses_instance_state.
  static Result<Kernel> create(DeviceState& device, spirv::CompiledKernel kernel, const Buffer* linear_memory,
                               VkDeviceAddress instance_state);

  Kernel(Kernel&& other) noexcept;
  Kernel& operator=(Kernel&& other) noexcept;
  ~Kernel();

  const spirv::KernelInfo& info() const { return info_; }
  const std::string& name() const { return info_.export_name; }

  // Runs invocations 0..n-1 with workgroups of `workgroup_size` (0: the
  // default) and waits for them (up to options.timeout). Fails, without
  // running anything, on wrong argument count or types, a Buffer without a
  // wasm address, or a device that lacks a feature the kernel needs; fails
  // after running when an invocation trapped ("kernel 'k' trapped: integer
  // divide by zero at invocation 17 (3 invocations trapped)").
  Status launch(uint32_t n, uint32_t workgroup_size, std::span<const Arg> args, const LaunchOptions& options = {});
  Status launch(uint32_t n, uint32_t workgroup_size, std::initializer_list<Arg> args,
                const LaunchOptions& options = {}) {
    return launch(n, workgroup_size, std::span<const Arg>(args.begin(), args.size()), options);
  }

  // Runs a grid of workgroups (grid.h). The kernel's index is the linearised
  // global id: x + y * (grid.x * size.x) + z * (grid.x * size.x) * (grid.y * size.y).
  // Fails, without running anything, when the workgroup size or count exceeds
  // the device's limits or the kernel's shared memory does not fit.
  Status launch(Grid grid, WorkgroupSize workgroup_size, std::span<const Arg> args, const LaunchOptions& options = {});
  Status launch(Grid grid, WorkgroupSize workgroup_size, std::initializer_list<Arg> args,
                const LaunchOptions& options = {}) {
    return launch(grid, workgroup_size, std::span<const Arg>(args.begin(), args.size()), options);
  }

  // Either shape (recorded_launch.h).
  Status launch(const LaunchShape& shape, std::span<const Arg> args, const LaunchOptions& options = {});

  // The checks of launch() and record() without launching or recording: ok
  // when a launch of this shape with these arguments would be accepted.
  // Creates the pipeline and grows the device's stacks as they would.
  Status check_launch(const LaunchShape& shape, std::span<const Arg> args);

  // Records the launch into `cmd` (a command buffer in the recording state,
  // of the Device's compute queue family) instead of running it: the same
  // checks as launch() (failing without recording anything), the pipeline
  // created if needed, the LaunchBlock and trap record written into `arena`,
  // then the barriers (see RecordOptions) and dispatches. Nothing is
  // submitted: the caller submits `cmd`, waits, then reads the trap record
  // (read_trap). The Buffers passed, the Kernel and the arena must outlive the
  // command buffer's execution; the region table (every buffer with a wasm
  // address, for pointers stored in memory) is the one of recording time.
  // A launch of 0 invocations records nothing. See recorded_launch.h.
  Result<RecordedLaunch> record(VkCommandBuffer cmd, const LaunchShape& shape, std::span<const Arg> args,
                                LaunchArena& arena, const RecordOptions& options = {});
  Result<RecordedLaunch> record(VkCommandBuffer cmd, const LaunchShape& shape, std::initializer_list<Arg> args,
                                LaunchArena& arena, const RecordOptions& options = {}) {
    return record(cmd, shape, std::span<const Arg>(args.begin(), args.size()), arena, options);
  }

  // Internal: the pipeline for one workgroup size, abi::index_dims, whether
  // the launch may overrun its count (abi::kSpecMayOverrun) and the
  // parameters proven at launch (abi::kSpecProvenParams), created on first use.
  Result<VkPipeline> pipeline(uint32_t workgroup_size, uint32_t size_y = 1, uint32_t size_z = 1,
                              uint32_t index_dims = 3, bool may_overrun = true, uint32_t proven_params = 0);
  DeviceState* device_state() const { return device_; }
  // The pipeline layout of this kernel: with the bindless image set 0 when
  // info().uses_images (bindless.h), else push constants only.
  VkPipelineLayout pipeline_layout() const;
  const Buffer* linear_memory() const { return memory_; }
  VkDeviceAddress instance_state() const { return instance_state_; }

  // A mutable global the kernel may write (frontend::describe_global's text;
  // empty when it writes none but the shadow stack pointer). Every
  // invocation of a launch shares the instance's globals, so a launch of
  // more than one invocation of such a kernel is refused, naming it, rather
  // than losing updates (docs/memory-model.md, "Globals"). Modules set it.
  void set_shared_global_write(std::string global) { shared_global_write_ = std::move(global); }
  const std::string& shared_global_write() const { return shared_global_write_; }

 private:
  Kernel(DeviceState* device, VkShaderModule shader, spirv::KernelInfo info, const Buffer* linear_memory);
  void release();
  DeviceState* device_ = nullptr;
  VkShaderModule shader_ = VK_NULL_HANDLE;
  // By shape and specialization (Kernel::pipeline): the shape's key, proven_params.
  std::map<std::pair<uint64_t, uint32_t>, VkPipeline> pipelines_;
  spirv::KernelInfo info_;
  const Buffer* memory_ = nullptr;
  VkDeviceAddress instance_state_ = 0;
  std::string shared_global_write_;
};

}  // namespace wasmgpu::runtime
