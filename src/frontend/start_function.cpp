#include "frontend/start_function.h"

#include <algorithm>
#include <string>
#include <vector>

namespace wasmgpu::frontend {

namespace {

using wasm::Instr;
using wasm::Opcode;
using wasm::ValType;

bool shared_memory(const wasm::Module& module) {
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) return import.memory.limits.shared;
  return !module.memories.empty() && module.memories[0].limits.shared;
}

bool is_wait(Opcode op) { return op == Opcode::MemoryAtomicWait32 || op == Opcode::MemoryAtomicWait64; }

Instr make(Opcode op, const Instr& at, uint32_t imm0 = 0, uint64_t imm64 = 0) {
  Instr instr;
  instr.op = op;
  instr.offset = at.offset;  // messages point at the wait
  instr.imm0 = imm0;
  instr.imm64 = imm64;
  return instr;
}

// Rewrites the waits of one function; locals are added for the operands.
void rewrite_waits(const wasm::Module& module, wasm::Function& function) {
  bool any = false;
  for (const Instr& instr : function.body) any = any || is_wait(instr.op);
  if (!any) return;
  const uint32_t params = uint32_t(module.types.at(function.type_index).params.size());
  auto add_local = [&](ValType type) {
    function.locals.push_back(type);
    return params + uint32_t(function.locals.size()) - 1;
  };
  const uint32_t timeout = add_local(ValType::I64);
  const uint32_t expected32 = add_local(ValType::I32);
  const uint32_t expected64 = add_local(ValType::I64);

  const std::vector<Instr>& old = function.body;
  std::vector<Instr> body;
  std::vector<uint32_t> moved(old.size());  // old index -> new index
  std::vector<bool> inserted;               // per new instruction: not from `old`
  auto push = [&](Instr instr, bool is_inserted) {
    body.push_back(instr);
    inserted.push_back(is_inserted);
    return uint32_t(body.size() - 1);
  };
  for (size_t i = 0; i < old.size(); ++i) {
    const Instr& instr = old[i];
    moved[i] = uint32_t(body.size());
    if (!is_wait(instr.op)) {
      push(instr, false);
      continue;
    }
    const bool wide = instr.op == Opcode::MemoryAtomicWait64;
    const uint32_t expected = wide ? expected64 : expected32;
    // [address, expected, timeout] -> [result]
    push(make(Opcode::LocalSet, instr, timeout), true);
    push(make(Opcode::LocalSet, instr, expected), true);
    Instr load = instr;  // the same memarg: the same bounds and alignment checks
    load.op = wide ? Opcode::I64AtomicLoad : Opcode::I32AtomicLoad;
    push(load, true);
    push(make(Opcode::LocalGet, instr, expected), true);
    push(make(wide ? Opcode::I64Ne : Opcode::I32Ne, instr), true);
    Instr outer = make(Opcode::If, instr);
    outer.block.kind = wasm::BlockType::Kind::Value;
    outer.block.value = ValType::I32;
    const uint32_t outer_if = push(outer, true);
    push(make(Opcode::I32Const, instr, 0, 1), true);  // not-equal
    const uint32_t outer_else = push(make(Opcode::Else, instr), true);
    push(make(Opcode::LocalGet, instr, timeout), true);
    push(make(Opcode::I64Const, instr, 0, 0), true);
    push(make(Opcode::I64LtS, instr), true);
    const uint32_t inner_if = push(make(Opcode::If, instr), true);
    push(make(Opcode::Unreachable, instr), true);  // an infinite wait nobody can end
    const uint32_t inner_end = push(make(Opcode::End, instr), true);
    body[inner_if].imm0 = body[inner_if].imm1 = inner_end;
    push(make(Opcode::I32Const, instr, 0, 2), true);  // timed-out
    const uint32_t outer_end = push(make(Opcode::End, instr), true);
    body[outer_if].imm0 = outer_else;
    body[outer_if].imm1 = outer_end;
  }
  for (size_t i = 0; i < body.size(); ++i) {
    if (inserted[i]) continue;
    Instr& instr = body[i];
    if (instr.op == Opcode::Block || instr.op == Opcode::Loop || instr.op == Opcode::If) {
      instr.imm0 = moved.at(instr.imm0);
      instr.imm1 = moved.at(instr.imm1);
    }
  }
  function.body = std::move(body);
}

}  // namespace

wasm::Module start_function_module(const wasm::Module& module) {
  wasm::Module copy = module;
  if (!shared_memory(copy)) return copy;
  for (wasm::Function& function : copy.functions) rewrite_waits(copy, function);
  return copy;
}

wasm::Module exporting_start_function(const wasm::Module& module, std::string& export_name) {
  const uint32_t function = module.start.value_or(0);
  // Its waits lowered as in an invocation that runs alone.
  wasm::Module exporting = start_function_module(module);
  // Messages keep naming the function as before (function_name falls back
  // on an export's name).
  const std::string own_name = module.function_name(function);
  auto& names = exporting.names.function_names;
  auto at = std::lower_bound(names.begin(), names.end(), function,
                             [](const auto& entry, uint32_t index) { return entry.first < index; });
  if (at == names.end() || at->first != function) names.insert(at, {function, own_name});
  export_name = "<start>";
  while (exporting.find_export(export_name, wasm::ExternalKind::Func)) export_name += "_";
  exporting.exports.push_back(wasm::Export{export_name, wasm::ExternalKind::Func, function, 0});
  return exporting;
}

}  // namespace wasmgpu::frontend
