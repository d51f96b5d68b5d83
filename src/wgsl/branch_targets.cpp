#include "wgsl/branch_targets.h"

#include <cstddef>
#include <cstdint>

namespace wasmgpu::wgsl {

std::vector<bool> branch_targets(const wasm::Function& function) {
  using wasm::Opcode;
  std::vector<bool> targeted(function.body.size(), false);
  std::vector<size_t> open;  // instruction index of each enclosing construct; the function is none
  auto mark = [&](uint32_t depth) {
    if (depth < open.size()) targeted[open[open.size() - 1 - depth]] = true;
  };
  for (size_t i = 0; i < function.body.size(); ++i) {
    const wasm::Instr& instr = function.body[i];
    switch (instr.op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If: open.push_back(i); break;
      case Opcode::End:
        if (!open.empty()) open.pop_back();
        break;
      case Opcode::Br:
      case Opcode::BrIf: mark(instr.imm0); break;
      case Opcode::BrTable:
        for (uint32_t depth : function.br_tables.at(instr.imm0)) mark(depth);
        break;
      default: break;
    }
  }
  return targeted;
}

bool skip_dead(const wasm::Instr& instr, uint32_t& depth) {
  using wasm::Opcode;
  if (instr.op == Opcode::Block || instr.op == Opcode::Loop || instr.op == Opcode::If) {
    ++depth;
    return true;
  }
  if (instr.op != Opcode::End && instr.op != Opcode::Else) return true;
  if (depth == 0) return false;
  if (instr.op == Opcode::End) --depth;
  return true;
}

}  // namespace wasmgpu::wgsl
