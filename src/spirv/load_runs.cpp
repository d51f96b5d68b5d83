// Load runs (docs/compiler.md, "Load runs"). A pointer-parameter load is
// speculative: its value is read before its range check is known, at a safe
// address when the check fails. Followed at once by its own branch to the
// general path, each load ends a basic block, and a driver that cannot prove
// the next load safe to hoist (it cannot know that the address is always
// mapped) issues the loads one after another, a memory latency each. In a run
// the branches wait: consecutive loads and the pure operations that use their
// values are lowered as usual, and one branch at the end of the run, taken
// only when some load failed its check, redoes the run in order, the loads on
// their general paths and the operations on the redone values.
//
// That is sound because until the run ends nothing outside it has seen a
// value of it: the run ends before any instruction that is not a constant, a
// local.get, a pure operation that cannot trap, or another such load (stores,
// calls, local.set, control flow, traps); and a load that would trap on its
// general path traps in the redo, in the order the code gives. Only in the
// kernel function in fast mode (exact mode has its own runs, float_exact.h).
#include "spirv/function_lowering.h"

#include "wasm/opcode.h"

namespace wasmgpu::spirv {

namespace {
using wasm::Opcode;
using wasm::ValType;
using Op = spv::Op;

// Members of a run beyond which it ends (bounds the redo's code).
constexpr size_t kMaxLoadRun = 16;

bool is_division(Opcode op) {
  switch (op) {
    case Opcode::I32DivS: case Opcode::I32DivU: case Opcode::I32RemS: case Opcode::I32RemU:
    case Opcode::I64DivS: case Opcode::I64DivU: case Opcode::I64RemS: case Opcode::I64RemU:
      return true;
    default: return false;
  }
}

// Numeric instructions that neither trap nor touch memory.
bool pure_operation(Opcode op) {
  if (op >= Opcode::I32Eqz && op <= Opcode::F64Ge) return true;  // comparisons
  if ((op >= Opcode::I32Clz && op <= Opcode::I32Rotr) || (op >= Opcode::I64Clz && op <= Opcode::I64Rotr))
    return !is_division(op);
  if (op >= Opcode::F32Abs && op <= Opcode::F64Copysign) return true;
  if (op >= Opcode::F32ConvertI32S && op <= Opcode::I64Extend32S) return true;  // converts, reinterprets, extends
  return op == Opcode::I32WrapI64 || op == Opcode::I64ExtendI32S || op == Opcode::I64ExtendI32U ||
         op == Opcode::Select || op == Opcode::SelectTyped || op == Opcode::Drop;
}

// The loads a run takes: 4 and 8 bytes, on the typed Parameter path.
struct RunLoad {
  uint32_t width;
  ValType type;
};
std::optional<RunLoad> run_load_kind(Opcode op) {
  switch (op) {
    case Opcode::I32Load: return RunLoad{4, ValType::I32};
    case Opcode::F32Load: return RunLoad{4, ValType::F32};
    case Opcode::I64Load: return RunLoad{8, ValType::I64};
    case Opcode::F64Load: return RunLoad{8, ValType::F64};
    default: return std::nullopt;
  }
}

// Values an instruction pops and pushes.
std::pair<size_t, size_t> arity(Opcode op) {
  if (op == Opcode::Select || op == Opcode::SelectTyped) return {3, 1};
  if (op == Opcode::Drop || op == Opcode::LocalSet) return {1, 0};
  if (op == Opcode::LocalTee) return {1, 1};
  if (op == Opcode::LocalGet) return {0, 1};
  const std::string_view sig = wasm::info(op).signature;
  const size_t colon = sig.find(':');
  if (colon == std::string_view::npos) return {0, 0};
  return {colon, sig.size() - colon - 1};
}
}  // namespace

bool FunctionLowering::joins_load_run(const wasm::Instr& instr, size_t ip) const {
  std::optional<RunLoad> kind = run_load_kind(instr.op);
  if (!kind || ip >= pointer_facts_.size() || stack_.empty() || run_values_.count(stack_.back())) return false;
  if (ip < load_groups_.group_of.size() && load_groups_.group_of[ip] >= 0) return false;
  return k_.helpers->takes_typed_parameter_path(&pointer_facts_[ip], instr.imm1, kind->width);
}

bool FunctionLowering::continues_load_run(const wasm::Instr& instr, size_t ip) const {
  switch (instr.op) {
    case Opcode::LocalGet: case Opcode::LocalSet: case Opcode::LocalTee: case Opcode::I32Const:
    case Opcode::I64Const: case Opcode::F32Const: case Opcode::F64Const: case Opcode::Nop:
      return true;
    default: break;
  }
  if (pure_operation(instr.op)) return arity(instr.op).first <= stack_.size();
  return joins_load_run(instr, ip);
}

bool FunctionLowering::consumes_run_value(const wasm::Instr& instr) const {
  const bool local = instr.op == Opcode::LocalGet || instr.op == Opcode::LocalSet || instr.op == Opcode::LocalTee;
  // A local written in the run is read and written in order with it: the
  // redo rewrites it.
  if (local && run_locals_.count(instr.imm0)) return true;
  if (!pure_operation(instr.op) && instr.op != Opcode::LocalSet && instr.op != Opcode::LocalTee) return false;
  const size_t operands = std::min(arity(instr.op).first, stack_.size());
  for (size_t i = stack_.size() - operands; i < stack_.size(); ++i)
    if (run_values_.count(stack_[i])) return true;
  return false;
}

Status FunctionLowering::lower_run_operation(const wasm::Instr& instr, size_t ip) {
  const auto [operands, results] = arity(instr.op);
  RunMember member{instr, std::vector<uint32_t>(stack_.end() - long(operands), stack_.end()), 0, 0, ip};
  if (instr.op == Opcode::LocalSet || instr.op == Opcode::LocalTee) run_locals_.insert(instr.imm0);
  lowering_member_ = true;
  Status lowered = lower_instruction(instr, ip);
  lowering_member_ = false;
  if (!lowered.ok()) return lowered;
  if (results != 0) {
    member.output = stack_.back();
    run_values_.insert(member.output);
  }
  run_.push_back(std::move(member));
  if (run_.size() >= kMaxLoadRun) settle_load_run();
  return {};
}

bool FunctionLowering::run_load(const wasm::Instr& instr, uint32_t ea, uint32_t width, bool is_signed,
                                ValType type) {
  const size_t ip = current_ip_;
  if (!load_runs_ || lowering_member_ || !run_load_kind(instr.op) || ip >= pointer_facts_.size()) return false;
  if (ip < load_groups_.group_of.size() && load_groups_.group_of[ip] >= 0) return false;
  std::optional<std::pair<uint32_t, uint32_t>> speculative =
      k_.helpers->load_parameter_speculative(f_, ea, width, &pointer_facts_[ip], instr.imm1);
  if (!speculative) return false;
  const uint32_t value = typed_load_value(speculative->second, width, is_signed, type);
  run_inside_ = run_.empty() ? speculative->first : op(Op::OpLogicalAnd, k_.t_bool, {run_inside_, speculative->first});
  run_.push_back({instr, {}, value, ea, ip});
  run_values_.insert(value);
  push(value);
  if (run_.size() >= kMaxLoadRun) settle_load_run();
  return true;
}

void FunctionLowering::settle_load_run() {
  if (run_.empty()) return;
  const size_t ip = current_ip_;
  std::vector<uint32_t> variables(run_.size(), 0);
  for (size_t i = 0; i < run_.size(); ++i) {
    if (run_[i].output == 0) continue;
    variables[i] = f_.variable(b_.type_of(run_[i].output));
    f_.store(variables[i], run_[i].output);
  }
  f_.if_else(op(Op::OpLogicalNot, k_.t_bool, {run_inside_}), [&] {
    std::unordered_map<uint32_t, uint32_t> redone;
    auto input = [&](uint32_t value) {
      auto it = redone.find(value);
      return it == redone.end() ? value : it->second;
    };
    for (size_t i = 0; i < run_.size(); ++i) {
      const RunMember& m = run_[i];
      uint32_t value = 0;
      if (std::optional<RunLoad> load = run_load_kind(m.instr.op)) {
        value = typed_load_value(k_.helpers->general_load(f_, m.ea, load->width), load->width, false, load->type);
      } else {
        std::vector<uint32_t> outer;
        std::swap(outer, stack_);
        for (uint32_t in : m.inputs) stack_.push_back(input(in));
        lowering_member_ = true;
        Status again = lower_instruction(m.instr, m.ip);  // lowered once already: cannot fail
        lowering_member_ = false;
        (void)again;
        if (m.output != 0) value = stack_.back();
        std::swap(outer, stack_);
      }
      if (m.output == 0) continue;
      redone[m.output] = value;
      f_.store(variables[i], value);
    }
  });
  for (size_t i = 0; i < run_.size(); ++i) {
    if (run_[i].output == 0) continue;
    const uint32_t settled = f_.load(b_.type_of(run_[i].output), variables[i]);
    for (uint32_t& value : stack_)
      if (value == run_[i].output) value = settled;
  }
  run_.clear();
  run_values_.clear();
  run_locals_.clear();
  run_inside_ = 0;
  current_ip_ = ip;
}

}  // namespace wasmgpu::spirv
