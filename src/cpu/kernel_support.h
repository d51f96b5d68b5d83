// What the cpu device can run so far (docs/cpu-device.md): a kernel and every
// function it reaches are checked before lowering, and anything else is
// refused with the function's name and the reason, never compiled wrongly.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "frontend/front_end_facts.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::cpu {

// The wasmgpu intrinsics the cpu device lowers: invocation and workgroup ids,
// barriers, atomics (each returning the old value), subgroups, and WASI's
// clock_time_get.
enum class CpuIntrinsic : uint8_t {
  GlobalId,
  WorkgroupId,
  LocalId,
  WorkgroupSize,
  WorkgroupCount,
  LocalIndex,
  Barrier,
  MemoryBarrier,  // memory_barrier and workgroup_memory_barrier
  AtomicAdd,
  AtomicSub,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  AtomicMinS,
  AtomicMaxS,
  AtomicMinU,
  AtomicMaxU,
  AtomicExchange,
  AtomicCompareExchange,
  AtomicAddF32,
  // Subgroups of kSubgroupSize consecutive local indices.
  SubgroupSize,
  SubgroupInvocationId,
  SubgroupId,
  SubgroupCount,
  // Cross-lane operations: a rendezvous of the subgroup's fibers
  // (workgroup_fibers.h); the value is passed and returned as bits.
  SubgroupBroadcast,  // and shuffle: the value of lane `lane`
  SubgroupBallot,
  SubgroupAll,
  SubgroupAny,
  SubgroupAddI32,
  SubgroupAddF32,
  SubgroupMinS,
  SubgroupMinU,
  SubgroupMinF,
  SubgroupMaxS,
  SubgroupMaxU,
  SubgroupMaxF,
  SubgroupInclusiveAddI32,
  SubgroupInclusiveAddF32,
  SubgroupExclusiveAddI32,
  SubgroupExclusiveAddF32,
  // WASI clock_time_get: LaunchContext::host_clock.
  ClockTimeGet,
};

// The cpu device's subgroup size (docs/cpu-device.md): lavapipe's, the
// smallest the examples assume.
inline constexpr uint32_t kSubgroupSize = 8;

// Whether the intrinsic is a cross-lane subgroup operation.
inline bool is_cross_lane(CpuIntrinsic intrinsic) {
  return intrinsic >= CpuIntrinsic::SubgroupBroadcast && intrinsic <= CpuIntrinsic::SubgroupExclusiveAddF32;
}

// The intrinsic imported function `function_index` is, when the cpu device
// supports it.
std::optional<CpuIntrinsic> cpu_intrinsic(const wasm::Module& module, uint32_t function_index);

// Whether the kernel reaches wasmgpu_barrier() or a cross-lane subgroup
// operation: its workgroups then run their invocations as fibers
// (docs/cpu-device.md, "Barriers").
bool needs_fibers(const wasm::Module& module, const frontend::FrontEndFacts& facts);

// Ok when the cpu device can run kernel `export_name` (its function and the
// front end's facts about it), else Unsupported naming the function and why.
Status check_cpu_support(const wasm::Module& module, const frontend::FrontEndFacts& facts,
                         std::string_view export_name);

}  // namespace wasmgpu::cpu
