// Records a kernel function's pointer-parameter accesses as expressions over
// its arguments and ids, for the runtime to prove at each launch
// (abi/launch_proof.h; docs/compiler.md, "Accesses proven at launch").
//
// A single forward walk over the wasm code, tracking each i32 local as an
// expression (or unknown): locals written inside a loop are unknown there,
// except a counted loop's control variable; branches narrow ids and loop
// variables while their constraints hold (to the end of the construct that
// holds the br_if, or an if's arm); block results are unknown.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/launch_proof.h"
#include "frontend/pointer_provenance.h"
#include "wasm/module.h"
#include "wasm/operand_flow.h"

namespace wasmgpu::frontend {

struct LaunchProofAnalysis {
  abi::LaunchProof proof;
  // Per instruction index: the index in proof.accesses of the load or store
  // recorded there, -1 where none.
  std::vector<int32_t> access_index;
};

// The kernel function `function_index` of a validated module, whose
// parameter 0 is the invocation index; `facts` are its pointer facts
// (pointer_provenance.h): only accesses with a Param base are recorded, for
// that parameter, when it is an i32 after the index.
LaunchProofAnalysis analyse_launch_proof(const wasm::Module& module, uint32_t function_index,
                                         const std::vector<PointerFact>& facts);
// The same, reading the function's operand flow (wasm/operand_flow.h) built once by the caller.
LaunchProofAnalysis analyse_launch_proof(const wasm::Module& module, uint32_t function_index,
                                         const wasm::OperandFlow& flow, const std::vector<PointerFact>& facts);

}  // namespace wasmgpu::frontend
