#include "frontend/call_graph.h"

#include <algorithm>

#include "frontend/intrinsic_catalog.h"
#include "frontend/stack_analysis.h"
#include "frontend/table.h"

namespace wasmgpu::frontend {
namespace {

using wasm::Opcode;

bool is_numeric(wasm::ValType type) {
  return type == wasm::ValType::I32 || type == wasm::ValType::I64 || type == wasm::ValType::F32 ||
         type == wasm::ValType::F64 || type == wasm::ValType::V128;
}

// Ok when a value type can be compiled (the back end is asked first), else
// why not. References are u32 function indices (abi::kNullRef for null).
Status check_type(wasm::ValType type, const BackEndLimits& limits) {
  if (limits.unlowerable_type)
    if (std::optional<std::string> why = limits.unlowerable_type(type))
      return make_error(ErrorCode::Compile, "uses " + *why);
  if (is_numeric(type) || type == wasm::ValType::V128 || type == wasm::ValType::FuncRef ||
      type == wasm::ValType::ExternRef)
    return {};
  return make_error(ErrorCode::Compile,
                    std::string("uses reference type ") + wasm::to_string(type) + " (not supported)");
}

Status check_block_type(const wasm::Module& module, const wasm::BlockType& block, const BackEndLimits& limits) {
  switch (block.kind) {
    case wasm::BlockType::Kind::Empty: return {};
    case wasm::BlockType::Kind::Value: return check_type(block.value, limits);
    case wasm::BlockType::Kind::TypeIndex: {
      const wasm::FuncType& type = module.types.at(block.type_index);
      for (wasm::ValType t : type.params) WASMGPU_TRY(check_type(t, limits));
      for (wasm::ValType t : type.results) WASMGPU_TRY(check_type(t, limits));
      return {};
    }
  }
  return {};
}

// Checks one defined function's body and collects its callees.
Status scan_function(const wasm::Module& module, uint32_t index, const IndirectCallTargets* targets,
                     const BackEndLimits& limits, std::vector<uint32_t>& callees) {
  const wasm::Function& function = module.functions.at(index - module.imported_functions);
  auto refuse = [&](const std::string& why) {
    return make_error(ErrorCode::Compile, "function " + module.function_name(index) + " " + why);
  };
  const wasm::FuncType& type = module.function_type(index);
  for (wasm::ValType t : type.params)
    if (Status s = check_type(t, limits); !s.ok()) return refuse(s.error().message);
  for (wasm::ValType t : type.results)
    if (Status s = check_type(t, limits); !s.ok()) return refuse(s.error().message);
  for (wasm::ValType t : function.locals)
    if (Status s = check_type(t, limits); !s.ok()) return refuse(s.error().message);

  for (const wasm::Instr& instr : function.body) {
    const wasm::OpcodeInfo& op = wasm::info(instr.op);
    if (limits.unlowerable_instruction)
      if (std::optional<std::string> why = limits.unlowerable_instruction(op)) return refuse("uses " + *why);
    switch (instr.op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If:
        if (Status s = check_block_type(module, instr.block, limits); !s.ok()) return refuse(s.error().message);
        break;
      case Opcode::SelectTyped:
        if (Status s = check_type(wasm::ValType(instr.imm0), limits); !s.ok()) return refuse(s.error().message);
        break;
      case Opcode::Call:
      case Opcode::ReturnCall:  // a tail call is a call edge like any other
        if (module.imported_function(instr.imm0)) {
          // wasmgpu intrinsics are lowered in place (intrinsic_catalog.h); nothing else runs.
          WASMGPU_TRY(check_import_call(module, index, instr.imm0));
          break;
        }
        if (std::find(callees.begin(), callees.end(), instr.imm0) == callees.end()) callees.push_back(instr.imm0);
        break;
      case Opcode::CallIndirect:
      case Opcode::ReturnCallIndirect:
        if (!targets) return refuse("uses " + std::string(op.text) + " through an imported table (not supported)");
        for (uint32_t callee : indirect_callees(module, *targets, instr.imm0)) {
          if (const wasm::Import* import = module.imported_function(callee))
            return refuse("may call imported function " + import->module + "." + import->name + " through " +
                          std::string(op.text) + " (imports cannot run on the GPU)");
          if (std::find(callees.begin(), callees.end(), callee) == callees.end()) callees.push_back(callee);
        }
        break;
      case Opcode::GlobalGet:
      case Opcode::GlobalSet:
        if (Status s = check_type(module.global_type(instr.imm0).type, limits); !s.ok())
          return refuse(s.error().message);
        break;
      case Opcode::TableGet:
      case Opcode::TableSet:
      case Opcode::TableInit:
      case Opcode::ElemDrop:
      case Opcode::TableCopy:
      case Opcode::TableGrow:
      case Opcode::TableSize:
      case Opcode::TableFill:
        if (!targets) return refuse("uses " + std::string(op.text) + " on an imported table (not supported)");
        break;
      default: break;
    }
  }
  return {};
}

}  // namespace

Result<CallGraph> build_call_graph(const wasm::Module& module, std::span<const uint32_t> roots,
                                   const IndirectCallTargets* targets, const BackEndLimits& limits) {
  CallGraph graph;
  const uint32_t total = module.total_functions();
  graph.callees.resize(total);
  for (uint32_t root : roots)
    if (const wasm::Import* import = module.imported_function(root))
      return make_error(ErrorCode::Compile, "function " + module.function_name(root) + " is imported from " +
                                                import->module + "." + import->name);
  // Tarjan's algorithm, iterative. A function's strongly connected component
  // is complete when the search leaves its first member; components come out
  // callees first, which is the order the compiler lowers them in.
  constexpr uint32_t kUnvisited = UINT32_MAX;
  std::vector<uint32_t> order(total, kUnvisited), low(total, 0);
  std::vector<bool> on_stack(total, false);
  std::vector<uint32_t> component_stack;
  struct Visit {
    uint32_t function;
    size_t next_callee;
  };
  std::vector<Visit> path;
  uint32_t counter = 0;
  auto enter = [&](uint32_t index) -> Status {
    WASMGPU_TRY(scan_function(module, index, targets, limits, graph.callees[index]));
    order[index] = low[index] = counter++;
    component_stack.push_back(index);
    on_stack[index] = true;
    path.push_back({index, 0});
    return {};
  };
  for (uint32_t root : roots) {
    if (order[root] != kUnvisited) continue;
    WASMGPU_TRY(enter(root));
    while (!path.empty()) {
      uint32_t current = path.back().function;
      size_t next = path.back().next_callee++;
      if (next < graph.callees[current].size()) {
        uint32_t callee = graph.callees[current][next];
        if (order[callee] == kUnvisited)
          WASMGPU_TRY(enter(callee));
        else if (on_stack[callee])
          low[current] = std::min(low[current], order[callee]);
        continue;
      }
      path.pop_back();
      if (!path.empty()) low[path.back().function] = std::min(low[path.back().function], low[current]);
      if (low[current] != order[current]) continue;
      std::vector<uint32_t> members;
      uint32_t member;
      do {
        member = component_stack.back();
        component_stack.pop_back();
        on_stack[member] = false;
        members.push_back(member);
      } while (member != current);
      std::sort(members.begin(), members.end());
      graph.functions.insert(graph.functions.end(), members.begin(), members.end());
      const std::vector<uint32_t>& own = graph.callees[current];
      bool recursive = members.size() > 1 || std::find(own.begin(), own.end(), current) != own.end();
      if (recursive) {
        for (uint32_t m : members) graph.component_of[m] = uint32_t(graph.recursive_components.size());
        graph.recursive_components.push_back(std::move(members));
      }
    }
  }
  return graph;
}

bool has_side_effects(const wasm::Module& module, const CallGraph& graph, uint32_t function,
                      std::optional<uint32_t> stack_pointer) {
  std::vector<bool> seen(module.total_functions(), false);
  std::vector<uint32_t> work{function};
  seen[function] = true;
  while (!work.empty()) {
    uint32_t current = work.back();
    work.pop_back();
    for (const wasm::Instr& instr : module.functions.at(current - module.imported_functions).body) {
      const wasm::OpcodeInfo& op = wasm::info(instr.op);
      bool is_store = op.cls == wasm::OpcodeClass::Memory && op.access.kind == wasm::AccessKind::Store;
      if (is_store || instr.op == Opcode::MemoryGrow || instr.op == Opcode::MemoryFill ||
          instr.op == Opcode::MemoryCopy || instr.op == Opcode::MemoryInit || instr.op == Opcode::DataDrop ||
          op.cls == wasm::OpcodeClass::Atomic)
        return true;
      if (instr.op == Opcode::TableSet || instr.op == Opcode::TableInit || instr.op == Opcode::ElemDrop ||
          instr.op == Opcode::TableCopy || instr.op == Opcode::TableGrow || instr.op == Opcode::TableFill)
        return true;
      if (instr.op == Opcode::GlobalSet && instr.imm0 != stack_pointer) return true;
    }
    for (uint32_t callee : graph.callees[current])
      if (!seen[callee]) {
        seen[callee] = true;
        work.push_back(callee);
      }
  }
  return false;
}

Result<std::vector<uint32_t>> written_globals(const wasm::Module& module, std::span<const uint32_t> roots) {
  std::optional<IndirectCallTargets> targets;
  if (Result<IndirectCallTargets> found = indirect_call_targets(module); found.ok()) targets = std::move(*found);
  WASMGPU_ASSIGN_OR_RETURN(CallGraph graph, build_call_graph(module, roots, targets ? &*targets : nullptr));
  const std::optional<uint32_t> stack_pointer = find_stack_pointer(module);
  std::vector<uint32_t> written;
  for (uint32_t function : graph.functions) {
    if (function < module.imported_functions) continue;
    for (const wasm::Instr& instr : module.functions.at(function - module.imported_functions).body)
      if (instr.op == Opcode::GlobalSet && instr.imm0 != stack_pointer) written.push_back(instr.imm0);
  }
  std::sort(written.begin(), written.end());
  written.erase(std::unique(written.begin(), written.end()), written.end());
  return written;
}

std::string describe_global(const wasm::Module& module, uint32_t index) {
  const std::string name = module.global_name(index);
  if (name.empty()) return "global " + std::to_string(index);
  return "global '" + name + "' (global " + std::to_string(index) + ")";
}

}  // namespace wasmgpu::frontend
