// What the cpu device can run so far (docs/cpu-device.md): a kernel and every
// function it reaches are checked before lowering, and anything else is
// refused with the function's name and the reason, never compiled wrongly.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "spirv/front_end_facts.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::cpu {

// The wasmgpu intrinsics the cpu device lowers: invocation and workgroup ids,
// barriers, and atomics (each returning the old value).
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
};

// The intrinsic imported function `function_index` is, when the cpu device
// supports it.
std::optional<CpuIntrinsic> cpu_intrinsic(const wasm::Module& module, uint32_t function_index);

// Whether the kernel reaches wasmgpu_barrier(): its workgroups then run
// their invocations as fibers (docs/cpu-device.md, "Barriers").
bool uses_barriers(const wasm::Module& module, const spirv::FrontEndFacts& facts);

// Ok when the cpu device can run kernel `export_name` (its function and the
// front end's facts about it), else Unsupported naming the function and why.
Status check_cpu_support(const wasm::Module& module, const spirv::FrontEndFacts& facts, std::string_view export_name);

}  // namespace wasmgpu::cpu
