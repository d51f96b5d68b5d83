#include "frontend/front_end_facts.h"

#include "frontend/launch_proof_analysis.h"
#include "frontend/shared_memory.h"

namespace wasmgpu::frontend {
namespace {

// `flow`: the function's operand flow, which the facts keep.
FunctionFacts analyse_function(const wasm::Module& module, const FrontEndFacts& facts, uint32_t index,
                               wasm::OperandFlow flow) {
  const wasm::Function& function = module.functions.at(index - module.imported_functions);
  FunctionFacts result;
  result.flow = std::move(flow);
  const bool is_kernel = facts.kernel_function && index == *facts.kernel_function;
  // A kernel's first parameter is its invocation index, never an address.
  ProvenanceOptions options;
  if (is_kernel) options.number_params = {true};
  options.max_workgroup_invocations = kProvenWorkgroupSizes[0];
  options.ranges = facts.ranges;
  result.provenance = analyse_pointer_provenance(module, index, result.flow, options);
  if (options.ranges) {
    for (size_t i = 1; i < std::size(kProvenWorkgroupSizes); ++i) {
      options.max_workgroup_invocations = kProvenWorkgroupSizes[i];
      result.ranges.push_back(analyse_pointer_provenance(module, index, result.flow, options));
    }
  }
  if (is_kernel && result.provenance.size() == function.body.size()) {
    LaunchProofAnalysis analysis = analyse_launch_proof(module, index, result.flow, result.provenance);
    result.launch_proof = std::move(analysis.proof);
    result.launch_access_index = std::move(analysis.access_index);
  }
  result.load_groups = find_load_groups(function.body, result.flow);
  result.store_groups = find_store_groups(function.body, result.flow);
  return result;
}

}  // namespace

Result<FrontEndFacts> analyse_module(const wasm::Module& module, std::span<const uint32_t> roots,
                                     std::optional<uint32_t> kernel_function, const BackEndLimits& limits) {
  FrontEndFacts facts;
  if (Result<IndirectCallTargets> targets = indirect_call_targets(module); targets.ok())
    facts.indirect_targets = std::move(*targets);
  const IndirectCallTargets* targets = facts.indirect_targets ? &*facts.indirect_targets : nullptr;
  WASMGPU_ASSIGN_OR_RETURN(facts.graph, build_call_graph(module, roots, targets, limits));
  // Every reachable function's operand flow, built once: the stack
  // analysis reads them all, the other analyses those outside recursive
  // components, whose facts keep them.
  std::map<uint32_t, wasm::OperandFlow> flows;
  for (uint32_t function : facts.graph.functions)
    flows.emplace(function,
                  wasm::OperandFlow::build(module, module.functions.at(function - module.imported_functions)));
  facts.stack = analyse_stack(module, facts.graph, &flows);
  if (kernel_function && !facts.graph.component_of.count(*kernel_function)) facts.kernel_function = kernel_function;
  WASMGPU_ASSIGN_OR_RETURN(SharedMemory shared, find_shared_memory(module));
  facts.ranges = shared.hi != shared.lo;
  for (uint32_t function : facts.graph.functions)
    if (!facts.graph.is_recursive(function))
      facts.functions.emplace(function, analyse_function(module, facts, function, std::move(flows.at(function))));
  for (uint32_t root : roots)
    facts.side_effects[root] = has_side_effects(module, facts.graph, root, find_stack_pointer(module));
  return facts;
}

}  // namespace wasmgpu::frontend
