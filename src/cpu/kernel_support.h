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

// The wasmgpu intrinsics the cpu device lowers: invocation and workgroup ids.
enum class CpuIntrinsic : uint8_t { GlobalId, LocalId, WorkgroupId, WorkgroupSize, WorkgroupCount, LocalIndex };

// The intrinsic imported function `function_index` is, when the cpu device
// supports it.
std::optional<CpuIntrinsic> cpu_intrinsic(const wasm::Module& module, uint32_t function_index);

// Ok when the cpu device can run kernel `export_name` (its function and the
// front end's facts about it), else Unsupported naming the function and why.
Status check_cpu_support(const wasm::Module& module, const spirv::FrontEndFacts& facts, std::string_view export_name);

}  // namespace wasmgpu::cpu
