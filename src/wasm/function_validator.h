// Type-checking of function bodies: the operand and control stacks of the
// spec's validation algorithm, driven by the opcode table's signatures.
#pragma once

#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::wasm {

// Each index space of a module flattened (imports first), so that lookups
// during body validation are O(1).
struct IndexSpaces {
  std::vector<const FuncType*> functions;
  std::vector<TableType> tables;
  std::vector<GlobalType> globals;
  std::vector<bool> declared_references;  // C.refs: valid targets of ref.func in bodies
};

// Requires every function's type index to be in range.
IndexSpaces build_index_spaces(const Module& module);

Status validate_function(const Module& module, const IndexSpaces& spaces, const Function& function);

}  // namespace wasmgpu::wasm
