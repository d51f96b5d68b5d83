// The invocations of one workgroup of a kernel with barriers, run as fibers
// (Boost.Context) on one worker thread: each runs until its next
// wasmgpu_barrier() or its end, then the next one runs; when every live
// invocation has had its turn, all of them have reached the barrier and the
// next round starts. Kernels without barriers never come here: they run
// their rows of invocations in one loop (cpu_device.cpp).
//
// Boost.Context switches by saving registers only. glibc's swapcontext also
// sets the signal mask, a system call per switch: in the bench's reduction
// it took more than half the time (docs/performance.md). Sanitized builds
// use Boost's ucontext flavour, which tells ASan about each switch.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <vector>

#include "cpu/kernel_abi.h"

namespace wasmgpu::cpu {

class WorkgroupFibers {
 public:
  // Room for `max_invocations` invocations per workgroup, each with a
  // shadow stack slot of `stack_slot_bytes`.
  WorkgroupFibers(uint32_t max_invocations, uint32_t stack_slot_bytes);
  ~WorkgroupFibers();
  WorkgroupFibers(const WorkgroupFibers&) = delete;
  WorkgroupFibers& operator=(const WorkgroupFibers&) = delete;

  // Adds invocation `invocation` of the workgroup: `row` gives its launch,
  // owner, row and shared block (the stack slot and fiber are its own).
  void add(const InvocationState& row, uint32_t invocation);
  // Runs every added invocation through `entry` to its end, then forgets them.
  void run(KernelEntry entry);
  // LaunchContext::barrier: back to the workgroup's scheduler until the
  // other invocations have reached the barrier too.
  static void barrier(InvocationState* state);
  // LaunchContext::subgroup: a cross-lane operation (docs/cpu-device.md,
  // "Subgroups"). The invocation leaves its value and waits as at a barrier;
  // the subgroup's active lanes are those that reached a subgroup operation
  // in the same round.
  static uint64_t subgroup(InvocationState* state, uint32_t op, uint64_t value, uint32_t lane);
  // Fiber switches so far (both directions), for the cost measurement.
  uint64_t switches() const { return switches_; }

  // Each fiber's C stack (the generated code keeps wasm locals there; the
  // wasm shadow stack is the separate slot). Reserved, touched as used.
  static constexpr size_t kFiberStackBytes = 256 * 1024;

 private:
  // What an invocation left at a subgroup operation in a round (two, by
  // the round's parity: a lane that already resumed may write the next).
  struct Slot {
    uint64_t value = 0;
    uint64_t round = ~uint64_t(0);
  };
  struct Fiber {
    // Suspended: the fiber itself (scheduler's side), and while it runs,
    // the scheduler it resumes at a barrier or its end (fiber's side).
    boost::context::fiber context;
    boost::context::fiber scheduler;
    InvocationState state;
    uint32_t invocation = 0;
    bool done = false;
    Slot slots[2];
  };
  // Each fiber's C stack: its slice of the reserved stacks.
  class StackSlice;

  std::vector<Fiber> fibers_;
  std::vector<uint8_t> stack_slots_;
  uint8_t* stacks_ = nullptr;  // max_invocations * kFiberStackBytes, mmap-reserved
  size_t stacks_bytes_ = 0;
  uint32_t stack_slot_bytes_ = 0;
  uint32_t used_ = 0;
  KernelEntry entry_ = nullptr;
  uint64_t switches_ = 0;
  uint64_t round_ = 0;  // turns every live fiber has had in this workgroup
};

}  // namespace wasmgpu::cpu
