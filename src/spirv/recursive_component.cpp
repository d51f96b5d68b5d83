// The state machine of a recursive component:
//
//   entry:  state = entry member; depth = 0; sp = 0; argument registers = params
//   loop {  switch (state) { case S: <basic block S>; state = next; break; ... }
//   } while (!trapped && state != kExit)
//   return the result registers
//
// States are the basic blocks of the members' wasm control flow: a member's
// entry, a targeted loop's header, a targeted block's end, an if's then, else
// and end, the code after a br_if and after a call into the component. Inside
// a state the operand stack is tracked as SPIR-V ids and instructions are
// selected by FunctionLowering as for any function. A transition stores the
// operand stack into `slot` variables (one per height and type) and the next
// state number; the next state loads them back. Slots live for one trip round
// the loop only, so every member shares them. A transition is a store, never a
// branch out of a selection, so each case keeps SPIR-V's structured rules.
//
// A call to a member (direct, or an indirect call that may reach one) pushes a
// frame onto the call stack: the caller's locals, the operand stack under the
// arguments and, on top, the state to resume in. Arguments travel in u64
// argument registers, results in u64 result registers. A return with depth 0
// leaves the machine; otherwise it continues at the resume state on top of
// the stack, which pops the frame. Traps do not return early (traps.cpp): the
// loop exits at its next trip once `trapped` is set.
//
// A tail call (return_call, or return_call_indirect reaching the member) to a
// member pushes nothing: it puts the arguments in the argument registers and
// continues at the callee's entry state, so the callee's return goes where
// the caller's would have (the caller's frame is replaced, and a tail-recursive
// loop of any length runs at constant depth). A tail call to a function outside
// the component is a call and a return.
#include "spirv/recursive_component.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "abi/launch_abi.h"
#include "spirv/function_lowering.h"
#include "spirv/runtime_helpers.h"
#include "frontend/table.h"

namespace wasmgpu::spirv {

namespace {

using Op = spv::Op;
using wasm::Opcode;

constexpr uint32_t kExit = 0xFFFF'FFFFu;  // no case: the switch's default

// Bits of a wasm value in a u64 register (i32/f32 in the low half).
Id pack(KernelContext& k, FunctionBuilder& f, Id value) {
  Id type = k.b.type_of(value);
  if (type == k.types.u64) return value;
  if (type == k.types.u32) return f.op(Op::OpUConvert, k.types.u64, {value});
  if (type == k.b.float_type(32)) return f.op(Op::OpUConvert, k.types.u64, {f.op(Op::OpBitcast, k.types.u32, {value})});
  return f.op(Op::OpBitcast, k.types.u64, {value});  // f64
}

Id unpack(KernelContext& k, FunctionBuilder& f, Id bits, Id type) {
  if (type == k.types.u64) return bits;
  if (type == k.b.float_type(64)) return f.op(Op::OpBitcast, type, {bits});
  Id low = f.op(Op::OpUConvert, k.types.u32, {bits});
  return type == k.types.u32 ? low : f.op(Op::OpBitcast, type, {low});
}

bool is_wide(KernelContext& k, Id type) { return type == k.types.u64 || type == k.b.float_type(64); }

}  // namespace

class ComponentLowering {
 public:
  ComponentLowering(KernelContext& k, const std::vector<uint32_t>& members, uint32_t max_depth);
  Result<uint32_t> lower();

 private:
  enum class Role : uint8_t { Entry, LoopHeader, BlockEnd, IfThen, IfElse, IfEnd, Continue, Resume };
  struct StateKey {
    uint32_t member;
    size_t instr;  // the instruction that opens the state
    Role role;
    auto operator<=>(const StateKey&) const = default;
  };
  struct State {
    uint32_t number = 0;
    Id label;
    bool emitted = false;
  };
  // A wasm label of the member being lowered.
  struct Label {
    enum class Kind : uint8_t { Function, Block, Loop, If } kind;
    size_t instr = 0, else_index = 0, end_index = 0;
    std::vector<Id> below;  // SPIR-V types of the operand stack under the parameters
    std::vector<wasm::ValType> params, results;
    bool targeted = false, seen_else = false;
  };

  bool is_member(uint32_t function) const { return position_.count(function) != 0; }
  bool reaches_member(const wasm::Instr& call_indirect) const;
  void plan_states(uint32_t member);
  uint32_t state(size_t instr, Role role) const { return states_.at({member_, instr, role}).number; }
  Id machine_result_type();

  Status lower_member(uint32_t member);
  Status lower_instruction(const wasm::Instr& instr, size_t ip);
  void enter_label(const wasm::Instr& instr, size_t ip);
  void lower_else();
  void lower_end();
  void branch(uint32_t depth);
  void lower_br_table(const wasm::Instr& instr);
  void return_from_member();
  // Continues where the member returns to: the resume state on top of the
  // call stack, or out of the machine at depth 0 (the results are set).
  void continue_at_return();
  Status tail_call_indirect(const wasm::Instr& instr);
  // A tail call that cannot reach a member: the plain call `op`, then the return.
  Status call_then_return(const wasm::Instr& instr, Opcode op, size_t ip);
  // Continues at a member's entry state with `args` in the argument registers
  // (a call's frame is pushed before; a tail call replaces the frame).
  void enter_member(uint32_t member, const std::vector<Id>& args);
  // A call of a function outside the component (an arm of call_indirect's
  // function switch), its results left in the u64 result registers.
  void call_into_result_registers(uint32_t callee, const wasm::FuncType& type, const std::vector<Id>& args);
  Status call_member(size_t ip, const std::vector<wasm::ValType>& params, const std::vector<wasm::ValType>& results,
                     const std::function<Status(const std::vector<Id>& args)>& dispatch);

  std::vector<Id> types_of(const std::vector<Id>& values) const;
  Id slot(size_t height, Id type);
  void transition(uint32_t state_number, const std::vector<Id>& values);
  void enter_state(uint32_t state_number, const std::vector<Id>& shape);
  void end_case();
  void store_arguments(const std::vector<Id>& args);
  Id stack_word(Id index);
  void push_words(Id sp, uint32_t& offset, Id value);
  Id pop_words(Id base, uint32_t& offset, Id type);
  void emit_entry_wrappers(Id machine);

  KernelContext& k_;
  ModuleBuilder& b_;
  std::vector<uint32_t> members_;
  std::map<uint32_t, uint32_t> position_;  // function index -> member position
  uint32_t max_depth_;
  size_t max_params_ = 0, max_results_ = 0;
  std::optional<FunctionBuilder> f_;
  std::vector<std::unique_ptr<FunctionLowering>> members_lowering_;
  std::map<StateKey, State> states_;
  std::vector<State*> by_number_;
  Id state_var_, depth_var_, sp_var_;
  Id frames_var_;             // u64: device address of this invocation's call stack
  uint32_t slot_offset_ = 0;  // where the call stack starts in the invocation's stack slot
  std::vector<Id> arg_vars_, result_vars_;
  std::map<std::pair<size_t, Id>, Id> slots_;  // (height, type) -> variable
  Id switch_merge_;
  uint32_t max_frame_words_ = 1;
  // The member being lowered.
  uint32_t member_ = 0;
  FunctionLowering* fl_ = nullptr;
  std::vector<Label> labels_;
  bool live_ = false;
};

ComponentLowering::ComponentLowering(KernelContext& k, const std::vector<uint32_t>& members, uint32_t max_depth)
    : k_(k), b_(k.b), members_(members), max_depth_(max_depth) {
  for (size_t i = 0; i < members_.size(); ++i) {
    position_.emplace(members_[i], uint32_t(i));
    const wasm::FuncType& type = k.module.function_type(members_[i]);
    max_params_ = std::max(max_params_, type.params.size());
    max_results_ = std::max(max_results_, type.results.size());
  }
}

bool ComponentLowering::reaches_member(const wasm::Instr& instr) const {
  if (!k_.indirect_targets) return false;
  for (uint32_t callee : indirect_callees(k_.module, *k_.indirect_targets, instr.imm0))
    if (is_member(callee)) return true;
  return false;
}

Id ComponentLowering::machine_result_type() {
  if (max_results_ == 0) return k_.types.void_type;
  if (max_results_ == 1) return k_.types.u64;
  std::vector<Id> members(max_results_, k_.types.u64);
  return b_.struct_type(members);
}

// Numbers every state a member may need, before any code: the dispatch switch
// lists them all. States that only dead code would open get empty cases.
void ComponentLowering::plan_states(uint32_t member) {
  const FunctionLowering& fl = *members_lowering_[member];
  const std::vector<wasm::Instr>& body = fl.function().body;
  auto add = [&](size_t instr, Role role) {
    State& s = states_[{member, instr, role}];
    s.number = uint32_t(by_number_.size());
    s.label = b_.fresh_id();
    by_number_.push_back(&s);
  };
  for (size_t ip = 0; ip < body.size(); ++ip) {
    const wasm::Instr& instr = body[ip];
    switch (instr.op) {
      case Opcode::Loop:
        if (fl.targeted(ip)) add(ip, Role::LoopHeader);
        break;
      case Opcode::Block:
        if (fl.targeted(ip)) add(ip, Role::BlockEnd);
        break;
      case Opcode::If:
        add(ip, Role::IfThen);
        add(ip, Role::IfElse);
        add(ip, Role::IfEnd);
        break;
      case Opcode::BrIf: add(ip, Role::Continue); break;
      case Opcode::Call:
        if (is_member(instr.imm0)) add(ip, Role::Resume);
        break;
      case Opcode::CallIndirect:
        if (reaches_member(instr)) add(ip, Role::Resume);
        break;
      default: break;
    }
  }
}

Result<uint32_t> ComponentLowering::lower() {
  Id machine = b_.fresh_id();
  std::vector<Id> params(1 + max_params_, k_.types.u64);
  params[0] = k_.types.u32;
  f_.emplace(b_, machine, machine_result_type(), params);
  FunctionBuilder& f = *f_;
  b_.name(machine, "recursion:" + k_.module.function_name(members_.front()));

  for (uint32_t function : members_) {
    auto lowering = std::make_unique<FunctionLowering>(k_, function, f);
    WASMGPU_TRY(lowering->prepare_member());
    members_lowering_.push_back(std::move(lowering));
  }
  // Entry states first, so that member i enters at state i.
  for (uint32_t i = 0; i < members_.size(); ++i) {
    State& s = states_[{i, 0, Role::Entry}];
    s.number = i;
    s.label = b_.fresh_id();
    by_number_.push_back(&s);
  }
  for (uint32_t i = 0; i < members_.size(); ++i) plan_states(i);

  state_var_ = f.variable(k_.types.u32);
  depth_var_ = f.variable(k_.types.u32);
  sp_var_ = f.variable(k_.types.u32);
  for (size_t i = 0; i < max_params_; ++i) arg_vars_.push_back(f.variable(k_.types.u64));
  for (size_t i = 0; i < max_results_; ++i) result_vars_.push_back(f.variable(k_.types.u64));
  frames_var_ = f.variable(k_.types.u64);

  // The call stack lives in the invocation's stack slot, after the shadow
  // stack and the call stacks of components lowered before. A component is
  // never re-entered from outside while it runs (a function that could do so
  // would be a member), so one call stack per component suffices.
  slot_offset_ = k_.stack_slot_size;
  auto launch_field = [&](uint32_t offset, Id type, uint32_t alignment) {
    Id address = f.op(Op::OpIAdd, k_.types.u64, {f.load(k_.types.u64, k_.abi.launch_block_var), b_.const_u64(offset)});
    return f.load_aligned(type, k_.device_pointer(f, address, type), alignment);
  };
  Id slot_size = f.op(Op::OpUConvert, k_.types.u64, {launch_field(abi::kLaunchStackSlotSize, k_.types.u32, 4)});
  Id slot = f.op(Op::OpUConvert, k_.types.u64, {f.load(k_.types.u32, k_.abi.stack_slot_var)});
  Id frames =
      f.op(Op::OpIAdd, k_.types.u64,
           {launch_field(abi::kLaunchStackBase, k_.types.u64, 8), f.op(Op::OpIMul, k_.types.u64, {slot, slot_size})});
  f.store(frames_var_, f.op(Op::OpIAdd, k_.types.u64, {frames, b_.const_u64(slot_offset_)}));
  f.store(state_var_, f.param(0));
  f.store(depth_var_, b_.const_u32(0));
  f.store(sp_var_, b_.const_u32(0));
  for (size_t i = 0; i < max_params_; ++i) f.store(arg_vars_[i], f.param(i + 1));
  // The state machine: a loop whose body dispatches on the state.
  Status lowered;
  f.loop(
      [&](const FunctionBuilder::LoopBlocks&) {
        switch_merge_ = b_.fresh_id();
        std::vector<std::pair<uint32_t, Id>> cases;
        for (const State* s : by_number_) cases.emplace_back(s->number, s->label);
        Id current = f.load(k_.types.u32, state_var_);
        f.selection_merge(switch_merge_);
        f.switch_(current, switch_merge_, cases);

        for (uint32_t i = 0; i < members_.size() && lowered.ok(); ++i) lowered = lower_member(i);
        if (!lowered.ok()) return;  // nothing more is emitted that counts
        for (State* s : by_number_) {
          if (s->emitted) continue;
          f.begin_block(s->label);
          f.branch(switch_merge_);
        }
        f.begin_block(switch_merge_);
      },
      [&](const FunctionBuilder::LoopBlocks& loop) {
        Id running =
            f.op(Op::OpLogicalAnd, k_.types.bool_type,
                 {f.op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f)}),
                  f.op(Op::OpINotEqual, k_.types.bool_type, {f.load(k_.types.u32, state_var_), b_.const_u32(kExit)})});
        f.branch_conditional(running, loop.header, loop.merge);
      });
  WASMGPU_TRY(std::move(lowered));
  if (max_results_ == 0) {
    f.return_();
  } else if (max_results_ == 1) {
    f.return_value(f.load(k_.types.u64, result_vars_[0]));
  } else {
    std::vector<Id> values;
    for (Id var : result_vars_) values.push_back(f.load(k_.types.u64, var));
    f.return_value(f.op(Op::OpCompositeConstruct, f.result_type(), values));
  }

  uint64_t words = uint64_t(max_depth_) * max_frame_words_;
  if (words * 4 > kMaxCallStackBytes)
    return make_error(ErrorCode::Compile,
                      "the call stack of recursive function " + k_.module.function_name(members_.front()) +
                          " would take " + std::to_string(words * 4) + " bytes per invocation (depth " +
                          std::to_string(max_depth_) + " x " + std::to_string(max_frame_words_ * 4) +
                          "-byte frames), more than " + std::to_string(kMaxCallStackBytes) +
                          "; choose a smaller call stack depth");
  k_.stack_slot_size = uint32_t(slot_offset_ + (words * 4 + 15) / 16 * 16);
  f.finish();
  emit_entry_wrappers(machine);
  k_.current_function = UINT32_MAX;
  return uint32_t(words * 4);
}

void ComponentLowering::emit_entry_wrappers(Id machine) {
  Id machine_type = machine_result_type();
  for (uint32_t i = 0; i < members_.size(); ++i) {
    const wasm::FuncType& type = k_.module.function_type(members_[i]);
    std::vector<Id> params;
    for (wasm::ValType t : type.params) params.push_back(k_.types.value_type(t));
    FunctionBuilder w(b_, k_.function_ids.at(members_[i]), k_.types.result_type(type.results), params);
    b_.name(w.id(), k_.module.function_name(members_[i]));
    std::vector<Id> operands{machine, b_.const_u32(i)};
    for (size_t p = 0; p < max_params_; ++p)
      operands.push_back(p < params.size() ? pack(k_, w, w.param(p)) : b_.const_u64(0));
    Id result = w.op(Op::OpFunctionCall, machine_type, operands);
    std::vector<Id> values;
    for (size_t r = 0; r < type.results.size(); ++r) {
      Id bits = max_results_ == 1 ? result : w.op(Op::OpCompositeExtract, k_.types.u64, {result, literal(uint32_t(r))});
      values.push_back(unpack(k_, w, bits, k_.types.value_type(type.results[r])));
    }
    if (values.empty())
      w.return_();
    else if (values.size() == 1)
      w.return_value(values[0]);
    else
      w.return_value(w.op(Op::OpCompositeConstruct, w.result_type(), values));
    w.finish();
  }
}

// --- states ---

std::vector<Id> ComponentLowering::types_of(const std::vector<Id>& values) const {
  std::vector<Id> types;
  for (Id value : values) types.push_back(b_.type_of(value));
  return types;
}

Id ComponentLowering::slot(size_t height, Id type) {
  auto [it, inserted] = slots_.emplace(std::pair(height, type), Id());
  if (inserted) it->second = f_->variable(type);
  return it->second;
}

void ComponentLowering::transition(uint32_t state_number, const std::vector<Id>& values) {
  for (size_t h = 0; h < values.size(); ++h) f_->store(slot(h, b_.type_of(values[h])), values[h]);
  f_->store(state_var_, b_.const_u32(state_number));
}

void ComponentLowering::enter_state(uint32_t state_number, const std::vector<Id>& shape) {
  State& s = *by_number_.at(state_number);
  assert(!s.emitted && "a state is opened once");
  s.emitted = true;
  f_->begin_block(s.label);
  live_ = true;
  fl_->clear_stack();
  for (size_t h = 0; h < shape.size(); ++h) fl_->push(f_->load(shape[h], slot(h, shape[h])));
}

void ComponentLowering::end_case() {
  f_->branch(switch_merge_);
  live_ = false;
}

// --- one member ---

Status ComponentLowering::lower_member(uint32_t member) {
  member_ = member;
  fl_ = members_lowering_[member].get();
  FunctionLowering& fl = *fl_;
  FunctionBuilder& f = *f_;
  k_.current_function = members_[member];
  labels_.clear();
  enter_state(member, {});
  // Parameters from the argument registers; other locals start at zero.
  for (size_t i = 0; i < fl.locals().size(); ++i) {
    const Id type = k_.types.value_type(fl.local_types()[i]);
    f.store(fl.locals()[i], i < fl.type().params.size() ? unpack(k_, f, f.load(k_.types.u64, arg_vars_[i]), type)
                                                        : b_.const_null(type));
  }
  const std::vector<wasm::Instr>& body = fl.function().body;
  Label function_label;
  function_label.kind = Label::Kind::Function;
  function_label.else_index = function_label.end_index = body.size() - 1;
  function_label.results = fl.type().results;
  labels_.push_back(function_label);
  for (size_t ip = 0; ip < body.size() && !labels_.empty(); ++ip) {
    if (!live_) {
      // Dead code: skip to the else (of an if's then arm) or end of the label.
      const Label& top = labels_.back();
      bool in_then = top.kind == Label::Kind::If && !top.seen_else && top.else_index != top.end_index;
      ip = in_then ? top.else_index : top.end_index;
    }
    WASMGPU_TRY(lower_instruction(body[ip], ip));
  }
  if (!labels_.empty() || live_)
    return make_error(ErrorCode::Internal,
                      "function " + k_.module.function_name(members_[member]) + ": body is not well nested");
  return {};
}

Status ComponentLowering::lower_instruction(const wasm::Instr& instr, size_t ip) {
  FunctionLowering& fl = *fl_;
  FunctionBuilder& f = *f_;
  // As FunctionLowering::lower_instruction: exact f32 runs end before control flow.
  fl.settle_float_run(instr.op);
  switch (instr.op) {
    case Opcode::Block:
    case Opcode::Loop:
    case Opcode::If: enter_label(instr, ip); return {};
    case Opcode::Else: lower_else(); return {};
    case Opcode::End: lower_end(); return {};
    case Opcode::Br:
      branch(instr.imm0);
      end_case();
      return {};
    case Opcode::BrIf: {
      Id condition = fl.nonzero(fl.pop(), k_.types.u32);
      uint32_t next = state(ip, Role::Continue);
      std::vector<Id> stack = fl.stack();
      f.if_else(condition, [&] { branch(instr.imm0); }, [&] { transition(next, stack); });
      end_case();
      enter_state(next, types_of(stack));
      return {};
    }
    case Opcode::BrTable:
      lower_br_table(instr);
      end_case();
      return {};
    case Opcode::Return:
      return_from_member();
      end_case();
      return {};
    case Opcode::Unreachable:
      k_.helpers->trap(f, abi::TrapKind::Unreachable);
      f.store(state_var_, b_.const_u32(kExit));
      end_case();
      return {};
    case Opcode::Call: {
      if (!is_member(instr.imm0)) return fl.lower_instruction(instr, ip);
      const wasm::FuncType& callee = k_.module.function_type(instr.imm0);
      return call_member(ip, callee.params, callee.results, [&](const std::vector<Id>& args) -> Status {
        enter_member(instr.imm0, args);
        return {};
      });
    }
    case Opcode::CallIndirect: {
      if (!reaches_member(instr)) return fl.lower_instruction(instr, ip);
      const wasm::FuncType& expected = k_.module.types.at(instr.imm0);
      Id element = fl.pop();
      // The table lookup and its traps come before the call takes a frame.
      Id function = fl.resolve_element(instr.imm1, element);
      return call_member(ip, expected.params, expected.results, [&](const std::vector<Id>& args) {
        // Every arm continues at the resume state unless it enters a member;
        // trapping arms leave the result registers as they are.
        return fl.function_switch(function, instr.imm0, [&](uint32_t callee) -> Status {
          if (is_member(callee)) {
            enter_member(callee, args);
            return {};
          }
          call_into_result_registers(callee, expected, args);
          return {};
        });
      });
    }
    case Opcode::ReturnCall: {
      if (!is_member(instr.imm0)) return call_then_return(instr, Opcode::Call, ip);
      // The frame is replaced: no push, the callee returns to our return state.
      const size_t params = k_.module.function_type(instr.imm0).params.size();
      enter_member(instr.imm0, std::vector<Id>(fl.stack().end() - params, fl.stack().end()));
      end_case();
      return {};
    }
    case Opcode::ReturnCallIndirect: {
      if (!reaches_member(instr)) return call_then_return(instr, Opcode::CallIndirect, ip);
      WASMGPU_TRY(tail_call_indirect(instr));
      end_case();
      return {};
    }
    default: return fl.lower_instruction(instr, ip);
  }
}

// return_call_indirect that may reach a member: the table lookup and its
// traps, then per callee of the expected type either a member's entry state
// (the frame replaced) or a call of a non-member and the return after it.
Status ComponentLowering::tail_call_indirect(const wasm::Instr& instr) {
  FunctionLowering& fl = *fl_;
  FunctionBuilder& f = *f_;
  const wasm::FuncType& expected = k_.module.types.at(instr.imm0);
  Id element = fl.pop();
  std::vector<Id> args(fl.stack().end() - expected.params.size(), fl.stack().end());
  Id function = fl.resolve_element(instr.imm1, element);
  // Trapping arms (null, type mismatch) leave the machine.
  f.store(state_var_, b_.const_u32(kExit));
  return fl.function_switch(function, instr.imm0, [&](uint32_t callee) -> Status {
    if (is_member(callee)) {
      enter_member(callee, args);
      return {};
    }
    call_into_result_registers(callee, expected, args);
    continue_at_return();
    return {};
  });
}

void ComponentLowering::enter_label(const wasm::Instr& instr, size_t ip) {
  FunctionLowering& fl = *fl_;
  Label label;
  label.kind = instr.op == Opcode::Block  ? Label::Kind::Block
               : instr.op == Opcode::Loop ? Label::Kind::Loop
                                          : Label::Kind::If;
  label.instr = ip;
  label.else_index = instr.imm0;
  label.end_index = instr.imm1;
  std::tie(label.params, label.results) = fl.block_signature(instr.block);
  label.targeted = fl.targeted(ip);
  Id condition = label.kind == Label::Kind::If ? fl.nonzero(fl.pop(), k_.types.u32) : Id();
  std::vector<Id> stack = fl.stack();
  label.below = types_of(std::vector<Id>(stack.begin(), stack.end() - label.params.size()));
  labels_.push_back(label);
  if (label.kind == Label::Kind::Loop && label.targeted) {
    uint32_t header = state(ip, Role::LoopHeader);
    transition(header, stack);
    end_case();
    enter_state(header, types_of(stack));
  } else if (label.kind == Label::Kind::If) {
    uint32_t then_state = state(ip, Role::IfThen), else_state = state(ip, Role::IfElse);
    transition(then_state, stack);
    f_->store(state_var_,
              f_->op(Op::OpSelect, k_.types.u32, {condition, b_.const_u32(then_state), b_.const_u32(else_state)}));
    end_case();
    enter_state(then_state, types_of(stack));
  }
}

void ComponentLowering::lower_else() {
  Label& label = labels_.back();
  uint32_t end = state(label.instr, Role::IfEnd);
  if (live_) {
    transition(end, fl_->stack());
    end_case();
  }
  label.seen_else = true;
  std::vector<Id> shape = label.below;
  for (wasm::ValType t : label.params) shape.push_back(k_.types.value_type(t));
  enter_state(state(label.instr, Role::IfElse), shape);
}

void ComponentLowering::lower_end() {
  Label& label = labels_.back();
  std::vector<Id> shape = label.below;
  for (wasm::ValType t : label.results) shape.push_back(k_.types.value_type(t));
  switch (label.kind) {
    case Label::Kind::Function:
      if (live_) {
        return_from_member();
        end_case();
      }
      break;
    case Label::Kind::If: {
      uint32_t end = state(label.instr, Role::IfEnd);
      if (!label.seen_else) {
        lower_else();  // the implicit else passes the parameters on as results
        transition(end, fl_->stack());
        end_case();
      } else if (live_) {
        transition(end, fl_->stack());
        end_case();
      }
      enter_state(end, shape);
      break;
    }
    case Label::Kind::Block:
      if (label.targeted) {
        uint32_t end = state(label.instr, Role::BlockEnd);
        if (live_) {
          transition(end, fl_->stack());
          end_case();
        }
        enter_state(end, shape);
      }
      break;
    case Label::Kind::Loop: break;  // only the header is a branch target
  }
  labels_.pop_back();
}

void ComponentLowering::branch(uint32_t depth) {
  const Label& target = labels_[labels_.size() - 1 - depth];
  if (target.kind == Label::Kind::Function) {
    return_from_member();
    return;
  }
  const std::vector<Id>& stack = fl_->stack();
  size_t arity = target.kind == Label::Kind::Loop ? target.params.size() : target.results.size();
  std::vector<Id> values(stack.begin(), stack.begin() + target.below.size());
  values.insert(values.end(), stack.end() - arity, stack.end());
  Role role = target.kind == Label::Kind::Loop ? Role::LoopHeader
              : target.kind == Label::Kind::If ? Role::IfEnd
                                               : Role::BlockEnd;
  transition(state(target.instr, role), values);
}

void ComponentLowering::lower_br_table(const wasm::Instr& instr) {
  FunctionBuilder& f = *f_;
  Id selector = fl_->pop();
  const std::vector<uint32_t>& targets = fl_->function().br_tables[instr.imm0];
  std::map<uint32_t, Id> labels;  // depth -> case block
  for (uint32_t depth : targets)
    if (!labels.count(depth)) labels[depth] = b_.fresh_id();
  std::vector<std::pair<uint32_t, Id>> cases;
  for (size_t i = 0; i + 1 < targets.size(); ++i) cases.emplace_back(uint32_t(i), labels[targets[i]]);
  Id merge = b_.fresh_id();
  f.selection_merge(merge);
  f.switch_(selector, labels[targets.back()], cases);
  for (auto [depth, label] : labels) {
    f.begin_block(label);
    branch(depth);
    f.branch(merge);
  }
  f.begin_block(merge);
}

void ComponentLowering::return_from_member() {
  FunctionBuilder& f = *f_;
  const std::vector<Id>& stack = fl_->stack();
  size_t count = fl_->type().results.size();
  for (size_t i = 0; i < count; ++i) f.store(result_vars_[i], pack(k_, f, stack[stack.size() - count + i]));
  continue_at_return();
}

void ComponentLowering::continue_at_return() {
  FunctionBuilder& f = *f_;
  Id outermost = f.op(Op::OpIEqual, k_.types.bool_type, {f.load(k_.types.u32, depth_var_), b_.const_u32(0)});
  Id sp = f.load(k_.types.u32, sp_var_);
  Id top = f.op(Op::OpSelect, k_.types.u32,
                {outermost, b_.const_u32(0), f.op(Op::OpISub, k_.types.u32, {sp, b_.const_u32(1)})});
  Id resume = f.load_aligned(k_.types.u32, stack_word(top), 4);
  f.store(state_var_, f.op(Op::OpSelect, k_.types.u32, {outermost, b_.const_u32(kExit), resume}));
}

// --- calls into the component ---

Status ComponentLowering::call_then_return(const wasm::Instr& instr, Opcode op, size_t ip) {
  wasm::Instr call = instr;
  call.op = op;
  WASMGPU_TRY(fl_->lower_instruction(call, ip));
  return_from_member();
  end_case();
  return {};
}

void ComponentLowering::enter_member(uint32_t member, const std::vector<Id>& args) {
  store_arguments(args);
  f_->store(state_var_, b_.const_u32(position_.at(member)));
}

void ComponentLowering::call_into_result_registers(uint32_t callee, const wasm::FuncType& type,
                                                   const std::vector<Id>& args) {
  FunctionBuilder& f = *f_;
  std::vector<Id> operands{k_.function_ids.at(callee)};
  operands.insert(operands.end(), args.begin(), args.end());
  Id result = f.op(Op::OpFunctionCall, k_.types.result_type(type.results), operands);
  for (size_t r = 0; r < type.results.size(); ++r) {
    Id value = type.results.size() == 1
                   ? result
                   : f.op(Op::OpCompositeExtract, k_.types.value_type(type.results[r]), {result, literal(uint32_t(r))});
    f.store(result_vars_[r], pack(k_, f, value));
  }
}

void ComponentLowering::store_arguments(const std::vector<Id>& args) {
  for (size_t i = 0; i < args.size(); ++i) f_->store(arg_vars_[i], pack(k_, *f_, args[i]));
}

Id ComponentLowering::stack_word(Id index) {
  FunctionBuilder& f = *f_;
  Id offset = f.op(Op::OpIMul, k_.types.u64, {f.op(Op::OpUConvert, k_.types.u64, {index}), b_.const_u64(4)});
  return k_.device_pointer(f, f.op(Op::OpIAdd, k_.types.u64, {f.load(k_.types.u64, frames_var_), offset}),
                           k_.types.u32);
}

void ComponentLowering::push_words(Id sp, uint32_t& offset, Id value) {
  FunctionBuilder& f = *f_;
  Id type = b_.type_of(value);
  auto put = [&](Id word) {
    f.store_aligned(stack_word(f.op(Op::OpIAdd, k_.types.u32, {sp, b_.const_u32(offset++)})), word, 4);
  };
  if (!is_wide(k_, type)) {
    put(type == k_.types.u32 ? value : f.op(Op::OpBitcast, k_.types.u32, {value}));
    return;
  }
  Id bits = type == k_.types.u64 ? value : f.op(Op::OpBitcast, k_.types.u64, {value});
  put(f.op(Op::OpUConvert, k_.types.u32, {bits}));
  put(f.op(Op::OpUConvert, k_.types.u32, {f.op(Op::OpShiftRightLogical, k_.types.u64, {bits, b_.const_u32(32)})}));
}

Id ComponentLowering::pop_words(Id base, uint32_t& offset, Id type) {
  FunctionBuilder& f = *f_;
  auto get = [&] {
    return f.load_aligned(k_.types.u32, stack_word(f.op(Op::OpIAdd, k_.types.u32, {base, b_.const_u32(offset++)})), 4);
  };
  if (!is_wide(k_, type)) {
    Id word = get();
    return type == k_.types.u32 ? word : f.op(Op::OpBitcast, type, {word});
  }
  Id low = f.op(Op::OpUConvert, k_.types.u64, {get()});
  Id high = f.op(Op::OpUConvert, k_.types.u64, {get()});
  Id bits =
      f.op(Op::OpBitwiseOr, k_.types.u64, {low, f.op(Op::OpShiftLeftLogical, k_.types.u64, {high, b_.const_u32(32)})});
  return type == k_.types.u64 ? bits : f.op(Op::OpBitcast, type, {bits});
}

// Pops the arguments, pushes a frame (locals, the operand stack under the
// arguments, the resume state) unless the stack is full, which traps, and lets
// `dispatch` choose the next state. The resume state pops the frame and takes
// the results from the result registers.
Status ComponentLowering::call_member(size_t ip, const std::vector<wasm::ValType>& params,
                                      const std::vector<wasm::ValType>& results,
                                      const std::function<Status(const std::vector<Id>& args)>& dispatch) {
  FunctionLowering& fl = *fl_;
  FunctionBuilder& f = *f_;
  size_t first = fl.stack().size() - params.size();
  std::vector<Id> args(fl.stack().begin() + first, fl.stack().end());
  std::vector<Id> below(fl.stack().begin(), fl.stack().begin() + first);
  std::vector<Id> below_types = types_of(below);
  uint32_t resume = state(ip, Role::Resume);
  uint32_t frame_words = 0;
  Status status;
  Id depth = f.load(k_.types.u32, depth_var_);
  Id full = f.op(Op::OpUGreaterThanEqual, k_.types.bool_type, {depth, b_.const_u32(max_depth_)});
  f.if_else(
      full,
      [&] {
        k_.helpers->trap(f, abi::TrapKind::CallStackExhausted);
        f.store(state_var_, b_.const_u32(kExit));
      },
      [&] {
        Id sp = f.load(k_.types.u32, sp_var_);
        for (size_t i = 0; i < fl.locals().size(); ++i)
          push_words(sp, frame_words, f.load(k_.types.value_type(fl.local_types()[i]), fl.locals()[i]));
        for (Id value : below) push_words(sp, frame_words, value);
        push_words(sp, frame_words, b_.const_u32(resume));
        f.store(sp_var_, f.op(Op::OpIAdd, k_.types.u32, {sp, b_.const_u32(frame_words)}));
        f.store(depth_var_, f.op(Op::OpIAdd, k_.types.u32, {depth, b_.const_u32(1)}));
        f.store(state_var_, b_.const_u32(resume));
        status = dispatch(args);
      });
  WASMGPU_TRY(std::move(status));
  max_frame_words_ = std::max(max_frame_words_, frame_words);
  end_case();

  enter_state(resume, {});
  Id base = f.op(Op::OpISub, k_.types.u32, {f.load(k_.types.u32, sp_var_), b_.const_u32(frame_words)});
  f.store(sp_var_, base);
  f.store(depth_var_, f.op(Op::OpISub, k_.types.u32, {f.load(k_.types.u32, depth_var_), b_.const_u32(1)}));
  uint32_t offset = 0;
  for (size_t i = 0; i < fl.locals().size(); ++i) {
    const Id type = k_.types.value_type(fl.local_types()[i]);
    f.store(fl.locals()[i], pop_words(base, offset, type));
  }
  for (Id type : below_types) fl.push(pop_words(base, offset, type));
  for (size_t r = 0; r < results.size(); ++r) {
    const Id type = k_.types.value_type(results[r]);
    fl.push(unpack(k_, f, f.load(k_.types.u64, result_vars_[r]), type));
  }
  return {};
}

Result<uint32_t> lower_recursive_component(KernelContext& k, const std::vector<uint32_t>& members, uint32_t max_depth) {
  ComponentLowering lowering(k, members, max_depth);
  return lowering.lower();
}

}  // namespace wasmgpu::spirv
