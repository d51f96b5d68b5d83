// What the front end works out about a module once, before any back end runs
// (docs/compiler.md, "The front end"): the functions a shader reaches, their
// recursion components and side effects, the shadow stack's layout, and per
// function its operand flow, pointer provenance, value ranges, launch proofs
// and access groups. The SPIR-V writer is one back end that reads them; a CPU
// or WGSL back end reads the same value.
//
// The front end refuses what no back end could run; what one back end cannot
// lower it asks of that back end (`limits`, back_end_limits.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "abi/launch_proof.h"
#include "frontend/access_groups.h"
#include "frontend/back_end_limits.h"
#include "frontend/call_graph.h"
#include "frontend/pointer_provenance.h"
#include "frontend/stack_analysis.h"
#include "frontend/table.h"
#include "support/result.h"
#include "wasm/module.h"
#include "wasm/operand_flow.h"

namespace wasmgpu::frontend {

// Workgroup sizes (invocations) the shared-range proofs are made for, the
// largest first: a launch with a larger workgroup than a proof assumed runs
// the checks it removes (KernelContext::workgroup_at_most).
inline constexpr uint32_t kProvenWorkgroupSizes[] = {1024, 256};

struct FunctionFacts {
  wasm::OperandFlow flow;
  // Per instruction index: the facts about memory access addresses
  // (pointer_provenance.h), with ranges for kProvenWorkgroupSizes[0] when
  // the module has shared memory; and the same for each later size.
  std::vector<PointerFact> provenance;
  std::vector<std::vector<PointerFact>> ranges;
  // The kernel function only: the accesses proven at launch
  // (launch_proof_analysis.h), and per instruction index the access the
  // proof records there, -1 where none.
  std::optional<abi::LaunchProof> launch_proof;
  std::vector<int32_t> launch_access_index;
  AccessGroups load_groups, store_groups;
};

struct FrontEndFacts {
  // Without targets (an imported table), call_indirect and table
  // instructions are refused, naming the function.
  std::optional<IndirectCallTargets> indirect_targets;
  CallGraph graph;  // the functions reachable from the roots, recursion components
  StackLayout stack;
  // The kernel whose parameters hold the launch's arguments, when it is not
  // re-entered recursively.
  std::optional<uint32_t> kernel_function;
  bool ranges = false;  // whether value ranges were worked out: the module has shared memory
  // Every reachable function outside a recursive component, by function index.
  std::map<uint32_t, FunctionFacts> functions;
  // Per root: whether it, or anything it may call, writes memory, globals or
  // tables (call_graph.h, has_side_effects).
  std::map<uint32_t, bool> side_effects;

  const FunctionFacts* function(uint32_t index) const {
    auto found = functions.find(index);
    return found == functions.end() ? nullptr : &found->second;
  }
};

// The front end over the validated `module`, for a shader whose entry points
// are `roots`; `kernel_function`, one of them, is a kernel (its first
// parameter is the invocation index, the others may be launch arguments).
// `limits`: what the back end that will read the facts cannot lower.
Result<FrontEndFacts> analyse_module(const wasm::Module& module, std::span<const uint32_t> roots,
                                     std::optional<uint32_t> kernel_function, const BackEndLimits& limits);

}  // namespace wasmgpu::frontend
