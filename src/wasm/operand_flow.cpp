#include "wasm/operand_flow.h"

#include <cassert>

namespace wasmgpu::wasm {
namespace {

// One open construct while the walk builds the view.
struct Construct {
  Opcode kind = Opcode::Nop;  // Block, Loop, If, or Nop for the function
  size_t height = 0;          // stack height under its parameters
  size_t params = 0, results = 0;
  std::vector<ValueId> entry;  // its parameters' values on entry (If: what the else arm starts from)
  std::vector<ValueId> label;  // the values a branch to it joins: the end's (the header's for a loop)
  bool entry_reachable = true;
  bool unreachable = false;  // the code here is dead
  bool branched = false;     // a reachable branch targets its end
  bool seen_else = false;
};

}  // namespace

class OperandFlow::Builder {
 public:
  Builder(const Module& module, const Function& function)
      : module_(module), function_(function), body_(function.body) {}

  OperandFlow run(OperandFlow flow) {
    flow.values_.push_back({});  // kUnknown
    incoming_.emplace_back();
    flow.reachable_.assign(body_.size(), false);
    flow.operand_at_.reserve(body_.size() + 1);
    flow.result_at_.reserve(body_.size() + 1);
    flow_ = &flow;
    Construct function;
    function.results = module_.types.at(function_.type_index).results.size();
    function.label = new_joins(uint32_t(body_.size() - 1), function.results);
    constructs_.push_back(std::move(function));
    for (size_t ip = 0; ip < body_.size() && !constructs_.empty(); ++ip) {
      flow.operand_at_.push_back(uint32_t(flow.operand_ids_.size()));
      flow.result_at_.push_back(uint32_t(flow.result_ids_.size()));
      step(ip);
    }
    // Instructions after the function's end (none in a validated body).
    while (flow.operand_at_.size() < body_.size() + 1) flow.operand_at_.push_back(uint32_t(flow.operand_ids_.size()));
    while (flow.result_at_.size() < body_.size() + 1) flow.result_at_.push_back(uint32_t(flow.result_ids_.size()));
    flow.incoming_at_.reserve(incoming_.size() + 1);
    for (const std::vector<ValueId>& list : incoming_) {
      flow.incoming_at_.push_back(uint32_t(flow.incoming_ids_.size()));
      flow.incoming_ids_.insert(flow.incoming_ids_.end(), list.begin(), list.end());
    }
    flow.incoming_at_.push_back(uint32_t(flow.incoming_ids_.size()));
    return flow;
  }

 private:
  ValueId new_value(StackValue::Kind kind, uint32_t ip, uint32_t index) {
    flow_->values_.push_back({kind, ip, index});
    incoming_.emplace_back();
    return ValueId(flow_->values_.size() - 1);
  }
  std::vector<ValueId> new_joins(uint32_t ip, size_t count) {
    std::vector<ValueId> ids;
    for (size_t i = 0; i < count; ++i) ids.push_back(new_value(StackValue::Kind::Join, ip, uint32_t(i)));
    return ids;
  }

  ValueId pop() {
    const Construct& top = constructs_.back();
    if (stack_.size() <= top.height) return OperandFlow::kUnknown;  // dead code's polymorphic stack
    ValueId id = stack_.back();
    stack_.pop_back();
    return id;
  }
  // Pops `count` values as operands, the deepest first.
  std::vector<ValueId> pop_operands(size_t count) {
    std::vector<ValueId> ids(count);
    for (size_t i = count; i-- > 0;) ids[i] = pop();
    flow_->operand_ids_.insert(flow_->operand_ids_.end(), ids.begin(), ids.end());
    return ids;
  }
  void push_result(ValueId id) {
    stack_.push_back(id);
    flow_->result_ids_.push_back(id);
  }
  void push_new_results(size_t ip, size_t count) {
    for (size_t i = 0; i < count; ++i) push_result(new_value(StackValue::Kind::Result, uint32_t(ip), uint32_t(i)));
  }
  void instruction(size_t ip, size_t pops, size_t pushes) {
    pop_operands(pops);
    push_new_results(ip, pushes);
  }

  bool reachable() const { return !constructs_.back().unreachable; }
  void set_unreachable() {
    Construct& top = constructs_.back();
    stack_.resize(top.height);
    top.unreachable = true;
  }

  // The values `carried` join `depth`'s label, from reachable code.
  void branch(uint32_t depth, const std::vector<ValueId>& carried) {
    Construct& target = constructs_.at(constructs_.size() - 1 - depth);
    if (!reachable()) return;
    target.branched = true;
    for (size_t i = 0; i < carried.size() && i < target.label.size(); ++i)
      incoming_[target.label[i]].push_back(carried[i]);
  }
  size_t label_arity(uint32_t depth) const {
    const Construct& target = constructs_.at(constructs_.size() - 1 - depth);
    return target.kind == Opcode::Loop ? target.params : target.results;
  }

  void open(size_t ip, const Instr& instr) {
    auto [params, results] = module_.block_arity(instr.block);
    const ValueId condition = instr.op == Opcode::If ? pop() : OperandFlow::kUnknown;
    std::vector<ValueId> entry = pop_operands(params);
    if (instr.op == Opcode::If) flow_->operand_ids_.push_back(condition);
    Construct c;
    c.kind = instr.op;
    c.params = params;
    c.results = results;
    c.entry_reachable = reachable();
    c.unreachable = !c.entry_reachable;
    if (instr.op == Opcode::Loop) {
      c.label = new_joins(uint32_t(ip), params);
      for (size_t i = 0; i < params; ++i) {
        if (c.entry_reachable) incoming_[c.label[i]].push_back(entry[i]);
        push_result(c.label[i]);
      }
    } else {
      c.label = new_joins(instr.imm1, results);
      for (ValueId id : entry) push_result(id);
    }
    c.height = stack_.size() >= params ? stack_.size() - params : 0;
    c.entry.assign(stack_.begin() + std::ptrdiff_t(c.height), stack_.end());
    constructs_.push_back(std::move(c));
  }

  void end(size_t ip) {
    Construct& c = constructs_.back();
    const bool falls_through = !c.unreachable;
    std::vector<ValueId> values = pop_operands(falls_through ? c.results : 0);
    bool reached = falls_through;
    if (c.kind == Opcode::Loop) {
      c.label = new_joins(uint32_t(ip), c.results);
      for (size_t i = 0; i < values.size(); ++i) incoming_[c.label[i]].push_back(values[i]);
    } else {
      for (size_t i = 0; i < values.size(); ++i) incoming_[c.label[i]].push_back(values[i]);
      reached |= c.branched;
      if (c.kind == Opcode::If && !c.seen_else && c.entry_reachable) {
        // No else arm: the parameters pass through as the results.
        for (size_t i = 0; i < c.entry.size() && i < c.label.size(); ++i) incoming_[c.label[i]].push_back(c.entry[i]);
        reached = true;
      }
    }
    flow_->reachable_[ip] = reached;
    Construct done = std::move(constructs_.back());
    constructs_.pop_back();
    stack_.resize(done.height);
    for (ValueId id : done.label) push_result(id);
    if (!constructs_.empty()) constructs_.back().unreachable = !reached;
  }

  void step(size_t ip) {
    const Instr& instr = body_[ip];
    const OpcodeInfo& facts = info(instr.op);
    flow_->reachable_[ip] = reachable();
    if (!facts.typed_by_hand) return instruction(ip, facts.params.size(), facts.results.size());
    switch (instr.op) {
      case Opcode::Unreachable: return set_unreachable();
      case Opcode::Nop: return;
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If: return open(ip, instr);
      case Opcode::Else: {
        Construct& c = constructs_.back();
        std::vector<ValueId> values = pop_operands(c.unreachable ? 0 : c.results);
        for (size_t i = 0; i < values.size(); ++i) incoming_[c.label[i]].push_back(values[i]);
        if (!c.unreachable) c.branched = true;  // the then arm reaches the end
        c.seen_else = true;
        stack_.resize(c.height);
        stack_.insert(stack_.end(), c.entry.begin(), c.entry.end());
        c.unreachable = !c.entry_reachable;
        flow_->reachable_[ip] = c.entry_reachable;
        return;
      }
      case Opcode::End: return end(ip);
      case Opcode::Br: {
        branch(instr.imm0, pop_operands(label_arity(instr.imm0)));
        return set_unreachable();
      }
      case Opcode::BrIf: {
        const ValueId condition = pop();
        std::vector<ValueId> carried = pop_operands(label_arity(instr.imm0));
        flow_->operand_ids_.push_back(condition);
        branch(instr.imm0, carried);
        for (ValueId id : carried) push_result(id);
        return;
      }
      case Opcode::BrTable: {
        const std::vector<uint32_t>& targets = function_.br_tables.at(instr.imm0);
        const ValueId index = pop();
        std::vector<ValueId> carried = pop_operands(label_arity(targets.back()));
        flow_->operand_ids_.push_back(index);
        for (uint32_t depth : targets) branch(depth, carried);
        return set_unreachable();
      }
      case Opcode::Return: {
        const uint32_t depth = uint32_t(constructs_.size() - 1);
        branch(depth, pop_operands(label_arity(depth)));
        return set_unreachable();
      }
      case Opcode::Call: {
        const FuncType& callee = module_.function_type(instr.imm0);
        return instruction(ip, callee.params.size(), callee.results.size());
      }
      case Opcode::CallIndirect: {
        const FuncType& callee = module_.types.at(instr.imm0);
        return instruction(ip, callee.params.size() + 1, callee.results.size());
      }
      // A tail call consumes its arguments (and the table index) and, like
      // return, reaches nothing after it; it gives the caller's caller the results.
      case Opcode::ReturnCall: {
        instruction(ip, module_.function_type(instr.imm0).params.size(), 0);
        return set_unreachable();
      }
      case Opcode::ReturnCallIndirect: {
        instruction(ip, module_.types.at(instr.imm0).params.size() + 1, 0);
        return set_unreachable();
      }
      case Opcode::Drop: return instruction(ip, 1, 0);
      case Opcode::Select:
      case Opcode::SelectTyped: return instruction(ip, 3, 1);
      case Opcode::LocalGet:
      case Opcode::GlobalGet: return instruction(ip, 0, 1);
      case Opcode::LocalSet:
      case Opcode::GlobalSet: return instruction(ip, 1, 0);
      case Opcode::LocalTee: return instruction(ip, 1, 1);
      case Opcode::TableGet: return instruction(ip, 1, 1);
      case Opcode::TableSet: return instruction(ip, 2, 0);
      case Opcode::TableGrow: return instruction(ip, 2, 1);
      case Opcode::TableFill: return instruction(ip, 3, 0);
      case Opcode::RefNull:
      case Opcode::RefFunc: return instruction(ip, 0, 1);
      case Opcode::RefIsNull: return instruction(ip, 1, 1);
      default: assert(false && "an instruction typed by hand that the operand flow does not know"); return;
    }
  }

  const Module& module_;
  const Function& function_;
  const std::vector<Instr>& body_;
  OperandFlow* flow_ = nullptr;
  std::vector<ValueId> stack_;
  std::vector<Construct> constructs_;
  std::vector<std::vector<ValueId>> incoming_;  // by value id
};

std::span<const ValueId> OperandFlow::incoming(ValueId join) const { return slice(join, incoming_at_, incoming_ids_); }

std::optional<uint32_t> OperandFlow::producer(size_t ip, size_t k) const {
  std::span<const ValueId> ops = operands(ip);
  if (k >= ops.size() || values_[ops[k]].kind != StackValue::Kind::Result) return std::nullopt;
  return values_[ops[k]].ip;
}

OperandFlow OperandFlow::build(const Module& module, const Function& function) {
  return Builder(module, function).run(OperandFlow{});
}

}  // namespace wasmgpu::wasm
