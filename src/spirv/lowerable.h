// What the SPIR-V back end cannot lower, by the opcode facts (wasm/opcodes.def):
// memory.atomic.wait32/64 (an invocation cannot block); the one place that
// says so, which the front end asks for every type and instruction of every
// reachable function (build_call_graph, through limits()) and so refuses
// it, naming the function. An instruction the back end learns to lower
// leaves this list; no analysis changes.
#pragma once

#include <optional>
#include <string>

#include "frontend/back_end_limits.h"
#include "wasm/opcode.h"
#include "wasm/value_type.h"

namespace wasmgpu::spirv {

// Why the back end cannot lower instructions with these facts, completing
// "function F uses ...", or nullopt when it can.
std::optional<std::string> unlowerable_instruction(const wasm::OpcodeInfo& op);

// Why the back end cannot hold values of `type`, completing "function F
// uses ...", or nullopt when it can.
std::optional<std::string> unlowerable_type(wasm::ValType type);

// Both, for the front end (analyse_module).
inline frontend::BackEndLimits limits() { return {&unlowerable_type, &unlowerable_instruction}; }

}  // namespace wasmgpu::spirv
