// What one back end cannot lower, which the front end asks of it while it
// walks the reachable functions (build_call_graph), so that the refusal names
// the function as every other refusal does. The front end itself refuses only
// what no back end could run (imports other than the wasmgpu intrinsics,
// call_indirect through an imported table); each back end says the rest
// (spirv/lowerable.h, cpu/lowerable.h, wgsl/lowerable.h).
#pragma once

#include <optional>
#include <string>

#include "wasm/opcode.h"
#include "wasm/value_type.h"

namespace wasmgpu::frontend {

struct BackEndLimits {
  // Why the back end cannot hold values of `type`, completing "function F
  // uses ...", or nullopt when it can.
  std::optional<std::string> (*unlowerable_type)(wasm::ValType type) = nullptr;
  // Why the back end cannot lower instructions with these facts, completing
  // "function F uses ...", or nullopt when it can.
  std::optional<std::string> (*unlowerable_instruction)(const wasm::OpcodeInfo& op) = nullptr;
};

}  // namespace wasmgpu::frontend
