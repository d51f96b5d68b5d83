#include "spirv/table.h"

#include <algorithm>

namespace wasmgpu::spirv {

Result<StaticTable> build_static_table(const wasm::Module& module) {
  StaticTable table;
  if (module.total_tables() == 0) return table;
  if (module.imported_tables > 0)
    return make_error("call_indirect through an imported table is not supported");
  const wasm::TableType& type = module.tables[0];
  if (type.element != wasm::ValType::FuncRef) return make_error("table 0 does not hold funcref");
  table.slots.resize(type.limits.min);
  for (const wasm::ElementSegment& segment : module.elements) {
    if (segment.mode != wasm::ElementSegment::Mode::Active || segment.table != 0) continue;
    if (segment.offset.instrs.empty() || segment.offset.instrs[0].op != wasm::Opcode::I32Const)
      return make_error("an element segment's offset is not an i32 constant (not supported)");
    uint64_t offset = uint32_t(segment.offset.instrs[0].imm64);
    if (offset + segment.items.size() > table.slots.size())
      return make_error("an element segment does not fit table 0 (instantiation would fail)");
    for (size_t i = 0; i < segment.items.size(); ++i) {
      const wasm::ConstExpr& item = segment.items[i];
      if (item.instrs.empty()) return make_error("an element segment item is empty");
      const wasm::Instr& instr = item.instrs[0];
      if (instr.op == wasm::Opcode::RefFunc) table.slots[offset + i] = instr.imm0;
      else if (instr.op == wasm::Opcode::RefNull) table.slots[offset + i] = std::nullopt;
      else return make_error("an element segment item is not ref.func or ref.null (not supported)");
    }
  }
  return table;
}

std::vector<uint32_t> indirect_callees(const wasm::Module& module, const StaticTable& table,
                                       uint32_t type_index) {
  std::vector<uint32_t> callees;
  const wasm::FuncType& type = module.types.at(type_index);
  for (const std::optional<uint32_t>& slot : table.slots)
    if (slot && module.function_type(*slot) == type &&
        std::find(callees.begin(), callees.end(), *slot) == callees.end())
      callees.push_back(*slot);
  return callees;
}

}  // namespace wasmgpu::spirv
