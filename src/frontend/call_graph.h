// The functions a kernel reaches through `call` and `call_indirect`, their
// recursive strongly connected components, and the checks that refuse, with
// the function's name, what cannot be compiled.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frontend/back_end_limits.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::frontend {

struct CallGraph {
  // Function indices (function index space) reachable from the roots, callees
  // before callers, except within a recursive component, whose members are
  // listed next to each other (in index order).
  std::vector<uint32_t> functions;
  // Callees of each reachable function (call_indirect: every function it may
  // reach), by function index.
  std::vector<std::vector<uint32_t>> callees;  // indexed like Module function space
  // Strongly connected components with a cycle (direct or mutual recursion,
  // call_indirect included), callees first; members in index order.
  std::vector<std::vector<uint32_t>> recursive_components;
  // Function index -> index into recursive_components, for their members only.
  std::map<uint32_t, uint32_t> component_of;

  bool is_recursive(uint32_t function) const { return component_of.count(function) != 0; }
};

// Builds the call graph from `roots` (defined functions) and refuses imports
// other than the wasmgpu intrinsics (intrinsic_catalog.h), and what the back
// end says it cannot lower (`limits`: v128 types, instructions); recursive
// components are listed, not refused. call_indirect reaches every function of
// matching type among `targets` (table.h); call_indirect and table
// instructions are refused when it is null.
Result<CallGraph> build_call_graph(const wasm::Module& module, std::span<const uint32_t> roots,
                                   const struct IndirectCallTargets* targets = nullptr,
                                   const BackEndLimits& limits = {});
inline Result<CallGraph> build_call_graph(const wasm::Module& module, uint32_t root,
                                          const struct IndirectCallTargets* targets = nullptr,
                                          const BackEndLimits& limits = {}) {
  return build_call_graph(module, std::span<const uint32_t>(&root, 1), targets, limits);
}

// Whether `function` or anything it may call writes linear memory, globals
// or tables, grows memory or a table, or drops a segment (conservative). `graph` must
// contain `function`. Writes of the shadow stack pointer `stack_pointer` are
// private and do not count.
bool has_side_effects(const wasm::Module& module, const CallGraph& graph, uint32_t function,
                      std::optional<uint32_t> stack_pointer);

// The globals (global index space, ascending) that `roots` or anything they
// may call set with global.set, but the shadow stack pointer, which is
// private to each invocation (stack_analysis.h). These live in the instance
// state that every invocation of a launch shares (docs/memory-model.md,
// "Globals"). Fails where build_call_graph does (an imported table).
Result<std::vector<uint32_t>> written_globals(const wasm::Module& module, std::span<const uint32_t> roots);

// "global 'name' (global 3)" or "global 3" without a name, for messages.
std::string describe_global(const wasm::Module& module, uint32_t index);

}  // namespace wasmgpu::frontend
