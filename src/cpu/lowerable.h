// What the cpu device cannot lower at all, which the front end asks for every
// type and instruction of every reachable function (analyse_module) and
// refuses naming the function: memory.atomic.wait32/64 (an invocation cannot
// block). Every type lowers, v128 included (cpu/simd_ir_lowering.h). What it lowers but
// not yet in every form is checked after the facts (kernel_support.h).
#pragma once

#include <optional>
#include <string>

#include "frontend/back_end_limits.h"
#include "wasm/opcode.h"
#include "wasm/value_type.h"

namespace wasmgpu::cpu {

// Why the back end cannot lower instructions with these facts, completing
// "function F uses ...", or nullopt when it can.
std::optional<std::string> unlowerable_instruction(const wasm::OpcodeInfo& op);

// Why the back end cannot hold values of `type`, completing "function F
// uses ...", or nullopt when it can.
std::optional<std::string> unlowerable_type(wasm::ValType type);

// Both, for the front end (analyse_module).
inline frontend::BackEndLimits limits() { return {&unlowerable_type, &unlowerable_instruction}; }

}  // namespace wasmgpu::cpu
