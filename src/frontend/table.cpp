#include "frontend/table.h"

#include <algorithm>

#include "abi/launch_abi.h"

namespace wasmgpu::frontend {

namespace {

void add_ref_funcs(const wasm::ConstExpr& expr, std::vector<uint32_t>& out) {
  for (const wasm::Instr& instr : expr.instrs)
    if (instr.op == wasm::Opcode::RefFunc) out.push_back(instr.imm0);
}

}  // namespace

Result<IndirectCallTargets> indirect_call_targets(const wasm::Module& module) {
  if (module.imported_tables > 0)
    return make_error(ErrorCode::Compile,
                      "the module imports a table (tables are supported only when the module defines them)");
  IndirectCallTargets targets;
  for (const wasm::ElementSegment& segment : module.elements)
    for (const wasm::ConstExpr& item : segment.items) add_ref_funcs(item, targets.functions);
  for (const wasm::Global& global : module.globals) add_ref_funcs(global.init, targets.functions);
  for (const wasm::Function& function : module.functions)
    for (const wasm::Instr& instr : function.body)
      if (instr.op == wasm::Opcode::RefFunc) targets.functions.push_back(instr.imm0);
  std::sort(targets.functions.begin(), targets.functions.end());
  targets.functions.erase(std::unique(targets.functions.begin(), targets.functions.end()), targets.functions.end());
  return targets;
}

std::vector<uint32_t> indirect_callees(const wasm::Module& module, const IndirectCallTargets& targets,
                                       uint32_t type_index) {
  std::vector<uint32_t> callees;
  const wasm::FuncType& type = module.types.at(type_index);
  for (uint32_t function : targets.functions)
    if (module.function_type(function) == type) callees.push_back(function);
  return callees;
}

Result<std::vector<uint32_t>> element_items(const wasm::ElementSegment& segment) {
  std::vector<uint32_t> items;
  for (const wasm::ConstExpr& item : segment.items) {
    if (item.instrs.empty()) return make_error(ErrorCode::Validation, "an element segment item is empty");
    const wasm::Instr& instr = item.instrs[0];
    if (instr.op == wasm::Opcode::RefFunc)
      items.push_back(instr.imm0);
    else if (instr.op == wasm::Opcode::RefNull)
      items.push_back(abi::kNullRef);
    else
      return make_error(ErrorCode::Compile,
                        "an element segment item is " + std::string(wasm::info(instr.op).text) +
                            " (only ref.func and ref.null are supported: the host passes no references)");
  }
  return items;
}

uint32_t table_capacity(const wasm::TableType& table) {
  uint64_t max = table.limits.max.value_or(UINT32_MAX);
  uint64_t reserve = std::min<uint64_t>(max, table.limits.min + kTableGrowthSlots);
  return uint32_t(std::min<uint64_t>(std::max<uint64_t>(table.limits.min, reserve), kMaxTableSlots));
}

}  // namespace wasmgpu::frontend
