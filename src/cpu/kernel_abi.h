// The contract between native kernels (cpu/ir_lowering.cpp) and the cpu
// device that runs them: what one launch and one worker thread hand the
// compiled code. Plain structs read at fixed byte offsets by the generated
// code; the static_asserts keep both sides in step.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi/launch_abi.h"

namespace wasmgpu::cpu {

struct InvocationState;

// What every worker of one launch shares (read-only while it runs).
struct LaunchContext {
  uint8_t* memory_base = nullptr;  // host address of the module memory's wasm address 0
  uint64_t memory_size = 0;        // bytes of module memory: [0, memory_size) is mapped
  uint8_t* buffer_base = nullptr;  // host address of wasm address 0 in the buffer range
  // Per 64 KiB page of the 32-bit space: the wasm address where the buffer
  // owning the page ends, 0 where no buffer does (address_space.h).
  const uint64_t* page_end = nullptr;
  const uint64_t* args = nullptr;  // kernel arguments after the index, one 8-byte slot each
  // Called once per trapping invocation (the device records count and lowest index).
  void (*record_trap)(InvocationState* state, uint32_t invocation, uint32_t kind) = nullptr;
  // wasmgpu_barrier(): switches to the workgroup's next invocation (a fiber)
  // until every invocation of the workgroup has reached it (docs/cpu-device.md).
  void (*barrier)(InvocationState* state) = nullptr;
  // A cross-lane subgroup operation (the CpuIntrinsic's value as `op`): the
  // value's bits and a lane argument in, the result's bits out, after the
  // subgroup's other active invocations have reached it too.
  uint64_t (*subgroup)(InvocationState* state, uint32_t op, uint64_t value, uint32_t lane) = nullptr;
  // The module instance's InstanceState (abi/launch_abi.h's layout, with host
  // addresses where it holds device ones): memory size, globals, data
  // segments' dropped flags, tables. Shared by every launch and call of the
  // module; concurrent writes race, as on a GPU.
  uint8_t* instance = nullptr;
  // memory.grow: the old size in pages, or -1 (a compare-exchange on the
  // instance's page count, so growing from many invocations is safe).
  int32_t (*memory_grow)(uint8_t* instance, uint32_t delta_pages) = nullptr;
  uint32_t count = 0;  // invocations of the launch
  uint32_t workgroup_size[3] = {1, 1, 1};
  uint32_t workgroups[3] = {1, 1, 1};  // of the whole launch
  // The host's CLOCK_REALTIME and CLOCK_MONOTONIC in nanoseconds when the
  // launch started, which WASI's clock_time_get reads (as on Vulkan:
  // abi::kHostClockRealtime).
  uint64_t host_clock[2] = {0, 0};
};

// One worker's state while it runs invocations.
struct InvocationState {
  const LaunchContext* launch = nullptr;
  uint8_t* stack_slot = nullptr;  // the running invocation's shadow stack window
  void* owner = nullptr;          // the device's per-launch record (record_trap's)
  uint32_t trap = 0;              // 1 + abi::TrapKind of the running invocation, 0 none
  uint32_t stack_pointer = 0;     // __stack_pointer, private per invocation
  uint32_t invocation = 0;        // the running invocation's index
  uint32_t row_base = 0;          // invocation index of global x = 0 in this row
  uint32_t global_y = 0, global_z = 0;
  uint8_t* shared = nullptr;  // the running workgroup's WASMGPU_SHARED block (its wasm address: the range's start)
  void* fiber = nullptr;      // the device's fiber running this invocation, where the kernel has barriers
  // Per recursive component of the call graph (the front end's
  // recursive_components): its active calls (CompileOptions::max_call_depth).
  uint32_t* call_depths = nullptr;
  // Where the running invocation trapped: the module offset of the trapping
  // instruction, set with `trap` (reported under CompileOptions::trap_sites).
  uint32_t trap_site = 0;
  // The trapping memory access, set with the site: its wasm effective
  // address (abi::kNoTrapAddress for a trap of no access) and byte count.
  uint64_t trap_address = abi::kNoTrapAddress;
  uint32_t trap_bytes = 0;
};

// Byte offsets the generated code uses.
inline constexpr uint32_t kLaunchMemoryBase = offsetof(LaunchContext, memory_base);
inline constexpr uint32_t kLaunchMemorySize = offsetof(LaunchContext, memory_size);
inline constexpr uint32_t kLaunchBufferBase = offsetof(LaunchContext, buffer_base);
inline constexpr uint32_t kLaunchPageEnd = offsetof(LaunchContext, page_end);
inline constexpr uint32_t kLaunchArgs = offsetof(LaunchContext, args);
inline constexpr uint32_t kLaunchRecordTrap = offsetof(LaunchContext, record_trap);
inline constexpr uint32_t kLaunchBarrier = offsetof(LaunchContext, barrier);
inline constexpr uint32_t kLaunchSubgroup = offsetof(LaunchContext, subgroup);
inline constexpr uint32_t kLaunchCount = offsetof(LaunchContext, count);
inline constexpr uint32_t kLaunchInstance = offsetof(LaunchContext, instance);
inline constexpr uint32_t kLaunchMemoryGrow = offsetof(LaunchContext, memory_grow);
inline constexpr uint32_t kLaunchWorkgroupSize = offsetof(LaunchContext, workgroup_size);
inline constexpr uint32_t kLaunchWorkgroups = offsetof(LaunchContext, workgroups);
inline constexpr uint32_t kLaunchHostClock = offsetof(LaunchContext, host_clock);
inline constexpr uint32_t kStateLaunch = offsetof(InvocationState, launch);
inline constexpr uint32_t kStateStackSlot = offsetof(InvocationState, stack_slot);
inline constexpr uint32_t kStateTrap = offsetof(InvocationState, trap);
inline constexpr uint32_t kStateStackPointer = offsetof(InvocationState, stack_pointer);
inline constexpr uint32_t kStateInvocation = offsetof(InvocationState, invocation);
inline constexpr uint32_t kStateRowBase = offsetof(InvocationState, row_base);
inline constexpr uint32_t kStateGlobalY = offsetof(InvocationState, global_y);
inline constexpr uint32_t kStateGlobalZ = offsetof(InvocationState, global_z);
inline constexpr uint32_t kStateShared = offsetof(InvocationState, shared);
inline constexpr uint32_t kStateCallDepths = offsetof(InvocationState, call_depths);
inline constexpr uint32_t kStateTrapSite = offsetof(InvocationState, trap_site);
inline constexpr uint32_t kStateTrapAddress = offsetof(InvocationState, trap_address);
inline constexpr uint32_t kStateTrapBytes = offsetof(InvocationState, trap_bytes);

// The 32-bit wasm address space in pages of the buffer allocator's alignment.
inline constexpr uint32_t kPageShift = 16;
inline constexpr uint64_t kPageCount = uint64_t(1) << (32 - kPageShift);

// The compiled entry point: runs invocations [begin, end) of one row (the
// same global y and z, set in `state` with row_base), each with a fresh
// stack pointer, and reports each trap through LaunchContext::record_trap.
using KernelEntry = void (*)(InvocationState* state, uint32_t begin, uint32_t end);

// A compiled call of an exported function (vectorised calls): reads its
// parameters from 8-byte slots, writes its results to 8-byte slots (i32/f32
// in the low 4 bytes) and leaves a trap in `state->trap` (1 + TrapKind).
using CallEntry = void (*)(InvocationState* state, const uint64_t* params, uint64_t* results);

// Every call into compiled code goes through these. Clang's
// -fsanitize=function (part of -fsanitize=undefined, the asan preset) checks
// an indirect call by reading a signature from the 8 bytes before the callee;
// compiled code has none, and where it starts a page whose predecessor is
// unmapped that read faults. The calls into compiled code are left unchecked
// (the type is the ABI's, kernel_abi.h and ir_lowering.cpp).
#if defined(__clang__)
#define WASMGPU_NO_SANITIZE_FUNCTION __attribute__((no_sanitize("function")))
#else
#define WASMGPU_NO_SANITIZE_FUNCTION
#endif
WASMGPU_NO_SANITIZE_FUNCTION inline void run_compiled(KernelEntry entry, InvocationState* state, uint32_t begin,
                                                      uint32_t end) {
  entry(state, begin, end);
}
WASMGPU_NO_SANITIZE_FUNCTION inline void run_compiled(CallEntry entry, InvocationState* state, const uint64_t* params,
                                                      uint64_t* results) {
  entry(state, params, results);
}

}  // namespace wasmgpu::cpu
