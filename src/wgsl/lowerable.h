// What the WGSL back end cannot lower at all, which the front end asks for every
// type and instruction of every reachable function (analyse_module) and
// refuses naming the function: v128 values and instructions, and
// memory.atomic.wait32/64 (an invocation cannot block). What it lowers but
// not yet in every form is checked after the facts (function_writer.cpp).
#pragma once

#include <optional>
#include <string>

#include "frontend/back_end_limits.h"
#include "wasm/opcode.h"
#include "wasm/value_type.h"

namespace wasmgpu::wgsl {

// Why the back end cannot lower instructions with these facts, completing
// "function F uses ...", or nullopt when it can.
std::optional<std::string> unlowerable_instruction(const wasm::OpcodeInfo& op);

// Why the back end cannot hold values of `type`, completing "function F
// uses ...", or nullopt when it can.
std::optional<std::string> unlowerable_type(wasm::ValType type);

// Both, for the front end (analyse_module).
inline frontend::BackEndLimits limits() { return {&unlowerable_type, &unlowerable_instruction}; }

}  // namespace wasmgpu::wgsl
