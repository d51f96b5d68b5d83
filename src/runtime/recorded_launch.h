// Launches recorded into a caller's VkCommandBuffer (Kernel::record) instead
// of submitted and waited for (Kernel::launch).
//
// Usage, for code that owns its command buffer, queue and fence:
//
//   auto arena = LaunchArena::create(device);           // one per command buffer
//   vkBeginCommandBuffer(cmd, ...);
//   ... the caller's commands (timestamps, copies, ...) ...
//   auto a = kernel.record(cmd, LaunchShape::linear(n), {x, y}, *arena);
//   auto b = other.record(cmd, LaunchShape::linear(n), {y}, *arena);
//   record_host_read_barrier(device.state(), cmd);      // once, after the last launch,
//                                                       // when the host reads traps or results
//   vkEndCommandBuffer(cmd); vkQueueSubmit(queue, ..., fence); vkWaitForFences(...);
//   if (Status s = read_trap(*a); !s.ok()) ...          // "kernel 'k' trapped: ..."
//   arena->reset();                                     // only after the wait
//
// The command buffer must be recorded on the Device's compute queue family
// (DeviceState::queue_family) and submitted to a queue of it. Pipelines are
// created (and argument checks done) inside record(), so recording does not
// touch the GPU; nothing is submitted.
//
// Ordering: with RecordOptions::barrier_before (the default) each launch
// starts with a barrier from all earlier transfer and compute writes to its
// shader reads and writes, as Kernel::launch does. Without it the caller
// orders the launch against earlier work itself -- except for the
// per-invocation stacks (Device-wide scratch memory every launch of a kernel
// with a shadow stack reuses): record() always puts a barrier on the stacks
// before such a kernel when barrier_before is off, because two launches that
// both use them write the same memory.
#pragma once

#include <volk.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abi/launch_abi.h"
#include "runtime/grid.h"
#include "runtime/launch.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::runtime {

struct DeviceState;

// The shape of one launch: n invocations in 1-D workgroups (split into several
// dispatches when the workgroup count or stack budget requires), or a grid of
// workgroups (one dispatch). Workgroup size x == 0 picks the default.
struct LaunchShape {
  uint32_t n = 0;                  // 1-D launches
  WorkgroupSize workgroup_size{};  // 1-D launches use only x
  std::optional<Grid> grid;        // set for grid launches; n is then derived

  static LaunchShape linear(uint32_t n, uint32_t workgroup_size = 0) {
    return LaunchShape{n, WorkgroupSize{workgroup_size, 1, 1}, std::nullopt};
  }
  static LaunchShape of_grid(Grid grid, WorkgroupSize workgroup_size = {}) {
    return LaunchShape{0, workgroup_size, grid};
  }
};

struct RecordOptions {
  // Barrier from every earlier transfer/compute write to this launch (see the
  // file comment). Off: the caller orders it (stacks excepted).
  bool barrier_before = true;
  // Barrier from this launch's shader writes to host reads after it, so that
  // the host may read the trap record (and mapped results) after the wait.
  // Off: the caller records record_host_read_barrier() once after its last
  // launch instead.
  bool host_barrier_after = true;
};

// What the trap record of a finished launch says.
struct TrapReport {
  uint32_t trapped_invocations = 0;
  // The kind of the lowest trapping invocation; nullopt when the record holds
  // a count but no index (should not happen with compiled kernels).
  std::optional<abi::TrapKind> kind;
  uint32_t invocation = abi::kNoTrapIndex;  // lowest trapping invocation
  // Under CompileOptions::trap_sites: the module offset of the instruction
  // where one trapping invocation (site_invocation) trapped (abi::kNoTrapSite
  // when it was outside every instruction); nullopt without trap sites.
  std::optional<uint32_t> site;
  uint32_t site_invocation = abi::kNoTrapIndex;
  // The trapping memory access of site_invocation (trap sites only; address
  // abi::kNoTrapAddress when its trap was not of an access).
  uint64_t access_address = abi::kNoTrapAddress;
  uint32_t access_bytes = 0;
};

// One launch recorded by Kernel::record: where its LaunchBlock and trap
// record live in the LaunchArena. Plain data; valid while the arena keeps
// its allocations (until LaunchArena::reset or its destruction).
class RecordedLaunch {
 public:
  const std::string& kernel_name() const { return kernel_name_; }
  uint32_t invocations() const { return invocations_; }
  uint32_t dispatches() const { return dispatches_; }
  // Whether the kernel uses the device's per-invocation stacks.
  bool uses_stacks() const { return uses_stacks_; }

  // The trap record, read on the host. Only meaningful after the command
  // buffer finished executing and the host waited for it (with the host-read
  // barrier recorded, see RecordOptions::host_barrier_after).
  std::optional<TrapReport> trap() const;

  // For submitting the same command buffer again: zero the trap record, and
  // replace argument `index` (0 = the first after the invocation index) with
  // a value of the same wasm type. Only while the command buffer is not
  // executing: the values are read by the GPU when it runs.
  void reset_trap();
  Status set_arg(size_t index, const Arg& arg);
  // Whether the arguments still match the copy recorded into the command
  // buffer's push constants (abi/launch_abi.h): after set_arg changed one
  // that is copied there, the launch must be recorded anew. So too after
  // any change when the recorded pipeline relies on the arguments' accesses
  // being proven in bounds (abi/launch_proof.h).
  bool push_copy_current() const;

  // The push constants of this launch's dispatches except base_index, which
  // each dispatch sets: the LaunchBlock and module memory addresses and the
  // copy of the arguments as the LaunchBlock holds them now.
  std::array<uint8_t, abi::kPushConstantsSize> push_constants() const;

 private:
  friend struct LaunchRecorder;
  std::string kernel_name_;
  std::vector<wasm::ValType> params_;
  const DeviceState* device_ = nullptr;
  uint8_t* trap_record_ = nullptr;  // host pointer, abi::kTrapRecordWithClocksSize bytes
  uint8_t* arg_slots_ = nullptr;    // host pointer to the LaunchBlock's argument slots
  uint64_t block_address_ = 0;      // device address of the LaunchBlock
  uint64_t memory_address_ = 0;     // device address of the module memory (0: none)
  abi::PushLayout push_layout_;
  std::array<uint8_t, abi::kPushConstantsSize> recorded_push_{};  // as recorded
  std::vector<uint8_t> recorded_args_;  // the argument slots as recorded, when the pipeline relies on them
  uint32_t invocations_ = 0;
  uint32_t dispatches_ = 0;
  bool uses_stacks_ = false;
};

// Ok, or the error Kernel::launch reports for a trap: "kernel 'k' trapped:
// integer divide by zero at invocation 17 (3 invocations trapped)".
Status read_trap(const RecordedLaunch& launch);
// The message above for a report.
std::string trap_message(const std::string& kernel_name, const TrapReport& report);

// Barrier from all compute and transfer writes to host reads: record it once
// after the last launch (and copy) of a command buffer whose results or trap
// records the host reads after waiting.
void record_host_read_barrier(DeviceState& device, VkCommandBuffer cmd);

}  // namespace wasmgpu::runtime
