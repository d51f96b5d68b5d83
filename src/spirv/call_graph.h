// The functions a kernel reaches through `call`, and the checks that refuse,
// with the function's name, what the back end cannot compile.
#pragma once

#include <cstdint>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

struct CallGraph {
  // Function indices (function index space) reachable from the root, callees
  // before callers; the root is last.
  std::vector<uint32_t> functions;
  // Direct callees of each reachable function, by function index.
  std::vector<std::vector<uint32_t>> callees;  // indexed like Module function space
};

// Builds the call graph from `root` (a defined function) and refuses imports,
// recursion, call_indirect, tables, references and v128.
Result<CallGraph> build_call_graph(const wasm::Module& module, uint32_t root);

}  // namespace wasmgpu::spirv
