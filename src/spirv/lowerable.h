// What the SPIR-V back end cannot lower, by the opcode facts (wasm/opcodes.def):
// memory.atomic.wait32/64 (an invocation cannot block);
// the one place that says so, which build_call_graph asks for every
// instruction of every reachable function (and so refuses it, naming the
// function). An instruction the back end learns to lower leaves this list;
// no analysis changes.
#pragma once

#include <optional>
#include <string>

#include "wasm/opcode.h"

namespace wasmgpu::spirv {

// Why the back end cannot lower instructions with these facts, completing
// "function F uses ...", or nullopt when it can.
std::optional<std::string> unlowerable_instruction(const wasm::OpcodeInfo& op);

}  // namespace wasmgpu::spirv
