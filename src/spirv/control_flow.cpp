// Structured control flow. wasm's labels are structured already; SPIR-V's
// structured rules allow a branch only to the merge (break) or continue target
// of the innermost enclosing loop construct, or a return. So:
//
// - A label that is the target of some branch becomes a SPIR-V loop
//   construct: `block` and `if` labels are loops that run once (a branch to
//   them breaks to the merge, which is the label's end); a wasm `loop` label's
//   branch target is the continue target, whose back-edge re-enters the
//   header. Labels never targeted are emitted inline (an `if` as a selection).
// - A branch to the innermost enclosing construct is a direct break/continue.
//   A branch further out stores the target's frame index in the function's
//   `pending` variable and breaks out of the innermost construct; at the merge
//   of every construct that may be left that way, code tests `pending` and
//   either completes the branch (clearing `pending`) if it targets the next
//   enclosing construct, or keeps breaking outwards.
// - Except for clang's early exit from a loop: `block B ... loop L ... br_if B
//   ... br_if L end T end`, with straight-line code T. T runs only when L
//   falls through, so it is lowered there, inside L's construct; L's merge
//   then leads straight to B's end, and a branch from L to B is a plain break
//   of L. The `pending` flag it would need instead kept llvmpipe from joining
//   the loop's two exits (mandelbrot 0.70 of its GLSL twin with the flag,
//   1.14 without; docs/performance.md). NVIDIA's driver ran it faster with
//   the flag, so CompileOptions::loop_exit_breaks turns this off.
// - A branch to the function's label is a return; br_table is an OpSwitch
//   whose cases are ordinary branches (two levels of OpSwitch when it has
//   more cases than one OpSwitch may hold).
// - Branch values travel through Function variables of the target label
//   (results for block/if, parameters for loop).
// - Code after br/br_table/return/unreachable is dead up to the end (or else)
//   of its block and is skipped (FunctionLowering::lower jumps over it).
#include <cassert>
#include <map>

#include "spirv/function_lowering.h"

namespace wasmgpu::spirv {

using wasm::Opcode;

Status FunctionLowering::find_branch_targets() {
  const std::vector<wasm::Instr>& body = function_.body;
  targeted_.assign(body.size(), false);
  leaves_into_parent_.assign(body.size(), false);
  constexpr size_t kFunctionLabel = SIZE_MAX;
  std::vector<size_t> labels{kFunctionLabel};
  auto mark = [&](uint32_t depth) -> Status {
    if (depth >= labels.size())
      return make_error(ErrorCode::Internal,
                        "function " + k_.module.function_name(index_) + ": branch depth out of range");
    size_t label = labels[labels.size() - 1 - depth];
    if (label == kFunctionLabel) return {};
    targeted_[label] = true;
    // The label the branch leaves its target through.
    if (depth >= 1) {
      size_t child = labels[labels.size() - depth];
      if (body[child].op == Opcode::Loop) leaves_into_parent_[child] = true;
    }
    return {};
  };
  for (size_t i = 0; i < body.size(); ++i) {
    const wasm::Instr& instr = body[i];
    switch (instr.op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If: labels.push_back(i); break;
      case Opcode::End:
        if (labels.empty())
          return make_error(ErrorCode::Internal, "function " + k_.module.function_name(index_) + ": unbalanced end");
        labels.pop_back();
        break;
      case Opcode::Br:
      case Opcode::BrIf: WASMGPU_TRY(mark(instr.imm0)); break;
      case Opcode::BrTable:
        if (instr.imm0 >= function_.br_tables.size())
          return make_error(ErrorCode::Internal, "function " + k_.module.function_name(index_) + ": bad br_table");
        for (uint32_t depth : function_.br_tables[instr.imm0]) WASMGPU_TRY(mark(depth));
        break;
      default: break;
    }
  }
  return {};
}

std::pair<std::vector<wasm::ValType>, std::vector<wasm::ValType>> FunctionLowering::block_signature(
    const wasm::BlockType& block) const {
  switch (block.kind) {
    case wasm::BlockType::Kind::Empty: return {};
    case wasm::BlockType::Kind::Value: return {{}, {block.value}};
    case wasm::BlockType::Kind::TypeIndex: {
      const wasm::FuncType& type = k_.module.types.at(block.type_index);
      return {type.params, type.results};
    }
  }
  return {};
}

std::vector<Id> FunctionLowering::new_vars(const std::vector<wasm::ValType>& types) {
  std::vector<Id> vars;
  for (wasm::ValType type : types) vars.push_back(f_.variable(type_of(type)));
  return vars;
}

void FunctionLowering::store_top(const std::vector<Id>& vars) {
  assert(stack_.size() >= vars.size());
  size_t first = stack_.size() - vars.size();
  for (size_t i = 0; i < vars.size(); ++i) f_.store(vars[i], stack_[first + i]);
}

void FunctionLowering::load_into_stack(const std::vector<Id>& vars, const std::vector<wasm::ValType>& types) {
  for (size_t i = 0; i < vars.size(); ++i) push(f_.load(type_of(types[i]), vars[i]));
}

void FunctionLowering::enter_frame(const wasm::Instr& instr, size_t index) {
  Frame frame;
  frame.kind = instr.op == Opcode::Block  ? Frame::Kind::Block
               : instr.op == Opcode::Loop ? Frame::Kind::Loop
                                          : Frame::Kind::If;
  frame.else_index = instr.imm0;
  frame.end_index = instr.imm1;
  std::tie(frame.params, frame.results) = block_signature(instr.block);
  frame.construct = targeted_[index];
  frame.merges_into_parent =
      frame.kind == Frame::Kind::Loop && frame.construct && can_merge_into_parent(index, frames_.back());
  Id condition;
  if (frame.kind == Frame::Kind::If) condition = nonzero(pop(), k_.types.u32);
  frame.height = stack_.size() - frame.params.size();
  frame.param_values.assign(stack_.begin() + frame.height, stack_.end());

  if (frame.construct) {
    if (frame.kind == Frame::Kind::Loop) {
      frame.param_vars = new_vars(frame.params);
      store_top(frame.param_vars);
      stack_.resize(frame.height);
    }
    frame.result_vars = new_vars(frame.results);
    frame.header = b_.fresh_id();
    frame.merge = b_.fresh_id();
    frame.continue_target = b_.fresh_id();
    Id body = b_.fresh_id();
    f_.branch(frame.header);
    f_.begin_block(frame.header);
    f_.loop_merge(frame.merge, frame.continue_target);
    f_.branch(body);
    f_.begin_block(body);
    if (frame.kind == Frame::Kind::Loop) load_into_stack(frame.param_vars, frame.params);
  }
  if (frame.kind == Frame::Kind::If) {
    if (frame.result_vars.empty()) frame.result_vars = new_vars(frame.results);
    frame.if_merge = b_.fresh_id();
    frame.else_label = b_.fresh_id();
    Id then_label = b_.fresh_id();
    f_.selection_merge(frame.if_merge);
    f_.branch_conditional(condition, then_label, frame.else_label);
    f_.begin_block(then_label);
  }
  frames_.push_back(std::move(frame));
}

void FunctionLowering::lower_else() {
  Frame& frame = frames_.back();
  if (f_.open()) {
    store_top(frame.result_vars);
    f_.branch(frame.if_merge);
  }
  stack_.resize(frame.height);
  stack_.insert(stack_.end(), frame.param_values.begin(), frame.param_values.end());
  frame.seen_else = true;
  f_.begin_block(frame.else_label);
}

void FunctionLowering::lower_end() {
  Frame& frame = frames_.back();
  size_t frame_index = frames_.size() - 1;
  switch (frame.kind) {
    case Frame::Kind::Function:
      if (f_.open()) return_values();
      frames_.pop_back();
      return;
    case Frame::Kind::If:
      if (!frame.seen_else) lower_else();  // the implicit else passes the parameters on
      if (f_.open()) {
        store_top(frame.result_vars);
        f_.branch(frame.if_merge);
      }
      stack_.resize(frame.height);
      if (f_.begin_block(frame.if_merge)) {
        if (frame.construct)
          f_.branch(frame.merge);
        else
          load_into_stack(frame.result_vars, frame.results);
      }
      if (!frame.construct) {
        frames_.pop_back();
        return;
      }
      break;
    case Frame::Kind::Block:
    case Frame::Kind::Loop:
      if (!frame.construct) {  // inline: the results are on the stack already
        frames_.pop_back();
        return;
      }
      if (frame.merges_into_parent) {
        Frame loop = std::move(frame);
        frames_.pop_back();
        if (f_.open()) {
          // The code up to the parent's end follows, lowered on this path.
          frames_.back().closes_sunk_loop = true;
          sunk_loops_.push_back(std::move(loop));
        } else {
          // Nothing falls through: the code up to the parent's end is dead.
          stack_.resize(loop.height);
          close_loop_into_parent(std::move(loop));
        }
        return;
      }
      if (frame.closes_sunk_loop) {
        Frame loop = std::move(sunk_loops_.back());
        sunk_loops_.pop_back();
        if (f_.open()) {
          store_top(frame.result_vars);
          f_.branch(loop.merge);
        }
        close_loop_into_parent(std::move(loop));
      }
      if (f_.open()) {
        store_top(frame.result_vars);
        f_.branch(frame.merge);
      }
      break;
  }
  // The construct's continue target and merge.
  // The continue block only branches back: the trap test that ends loops is
  // at each branch to it (branch_to_frame_directly). NVIDIA's compiler ran
  // loops whose continue block branched conditionally slower (horner_f64
  // 0.81 of its twin with it there, 0.85 with the test moved;
  // docs/performance.md).
  f_.begin_block(frame.continue_target, /*keep_open=*/true);
  f_.branch(frame.header);
  stack_.resize(frame.height);
  if (f_.begin_block(frame.merge)) {
    dispatch_pending(frame_index);
    if (f_.open()) load_into_stack(frame.result_vars, frame.results);
  }
  frames_.pop_back();
}

bool FunctionLowering::can_merge_into_parent(size_t index, const Frame& parent) const {
  if (!k_.loop_exit_breaks || !leaves_into_parent_[index] || parent.kind != Frame::Kind::Block || !parent.construct)
    return false;
  const std::vector<wasm::Instr>& body = function_.body;
  for (size_t i = body[index].imm1 + 1; i < parent.end_index; ++i) {
    switch (body[i].op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If:
      case Opcode::Else:
      case Opcode::End:
      case Opcode::Br:
      case Opcode::BrIf:
      case Opcode::BrTable:
      case Opcode::Return:
      case Opcode::ReturnCall:
      case Opcode::ReturnCallIndirect:
      case Opcode::Unreachable: return false;
      default: break;
    }
  }
  return true;
}

void FunctionLowering::close_loop_into_parent(Frame loop) {
  f_.begin_block(loop.continue_target, /*keep_open=*/true);
  f_.branch(loop.header);
  if (!f_.begin_block(loop.merge)) return;
  frames_.push_back(std::move(loop));
  dispatch_pending(frames_.size() - 1);
  frames_.pop_back();
  if (f_.open()) f_.branch(frames_.back().merge);
}

size_t FunctionLowering::innermost_construct(size_t below) const {
  for (size_t i = below; i-- > 1;)
    if (frames_[i].construct) return i;
  return 0;
}

void FunctionLowering::branch_to_frame_directly(size_t frame_index, bool trap_tested) {
  const Frame& frame = frames_[frame_index];
  if (frame.kind != Frame::Kind::Loop) {
    f_.branch(frame.merge);
  } else if (trap_tested) {
    f_.branch(frame.continue_target);
  } else {
    // A trapped invocation leaves every loop at its next back-edge, so it
    // always terminates (traps.cpp).
    f_.branch_conditional(k_.helpers->trapped(f_), frame.merge, frame.continue_target);
  }
}

bool FunctionLowering::branches_back_directly(uint32_t depth) const {
  const size_t target_index = frames_.size() - 1 - depth;
  const Frame& target = frames_[target_index];
  return target.kind == Frame::Kind::Loop && target.construct && innermost_construct(frames_.size()) == target_index;
}

void FunctionLowering::return_values() {
  size_t count = type_.results.size();
  assert(stack_.size() >= count);
  if (count == 0) {
    f_.return_();
  } else if (count == 1) {
    f_.return_value(stack_.back());
  } else {
    std::vector<Id> values(stack_.end() - count, stack_.end());
    f_.return_value(f_.op(spv::Op::OpCompositeConstruct, f_.result_type(), values));
  }
}

void FunctionLowering::branch_to(uint32_t depth, bool trap_tested) {
  size_t target_index = frames_.size() - 1 - depth;
  Frame& target = frames_[target_index];
  if (target.kind == Frame::Kind::Function) {
    return_values();
    return;
  }
  assert(target.construct && "find_branch_targets marks every branch target");
  store_top(target.kind == Frame::Kind::Loop ? target.param_vars : target.result_vars);
  size_t inner = innermost_construct(frames_.size());
  if (inner == target_index) {
    branch_to_frame_directly(target_index, trap_tested);
    return;
  }
  if (frames_[inner].merges_into_parent && target_index + 1 == inner) {
    f_.branch(frames_[inner].merge);  // which leads straight to the target's end
    return;
  }
  f_.store(pending_var_, b_.const_u32(uint32_t(target_index)));
  frames_[inner].pending_targets.insert(target_index);
  f_.branch(frames_[inner].merge);
}

void FunctionLowering::dispatch_pending(size_t frame_index) {
  // The frame ends here: its set is not needed after.
  std::set<size_t> targets = std::move(frames_[frame_index].pending_targets);
  if (targets.empty()) return;
  size_t outer = innermost_construct(frame_index);
  // Targets at `outer` are completed here; those beyond it (smaller frame
  // indices) are forwarded outwards below.
  assert(outer != 0);
  Id pending = f_.load(k_.types.u32, pending_var_);
  auto complete = [&] {
    f_.store(pending_var_, b_.const_u32(0));
    branch_to_frame_directly(outer);
  };
  auto forward = [&] {
    for (size_t target : targets)
      if (target != outer) frames_[outer].pending_targets.insert(target);
    f_.branch(frames_[outer].merge);
  };
  bool has_outer = targets.count(outer) != 0;
  bool has_beyond = *targets.begin() < outer;
  f_.if_else(nonzero(pending, k_.types.u32), [&] {
    if (has_outer && has_beyond)
      f_.if_else(op(spv::Op::OpIEqual, k_.types.bool_type, {pending, b_.const_u32(uint32_t(outer))}), complete,
                 forward);
    else if (has_outer)
      complete();
    else
      forward();
  });
}

namespace {

// spirv-val refuses an OpSwitch with more (literal, label) pairs than this.
constexpr size_t kMaxSwitchCases = 16383;
// Selector values each inner switch covers when a br_table is split in two.
constexpr uint32_t kSelectorsPerChunk = 8192;

}  // namespace

void FunctionLowering::lower_br_table(const wasm::Instr& instr) {
  Id selector = pop();
  const std::vector<uint32_t>& targets = function_.br_tables[instr.imm0];
  const uint32_t default_depth = targets.back();
  // Entries that branch where the default does need no case of their own.
  std::vector<std::pair<uint32_t, uint32_t>> cases;  // selector value -> depth
  for (size_t i = 0; i + 1 < targets.size(); ++i)
    if (targets[i] != default_depth) cases.emplace_back(uint32_t(i), targets[i]);
  if (cases.empty()) {
    branch_to(default_depth);
    return;
  }
  if (cases.size() <= kMaxSwitchCases) {
    switch_to_depths(selector, cases, default_depth);
    return;
  }
  // Too many cases for one OpSwitch: an outer switch on selector / chunk size
  // picks an inner switch that holds that chunk's cases.
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> chunks;
  for (const auto& entry : cases) chunks[entry.first / kSelectorsPerChunk].push_back(entry);
  Id chunk = op(spv::Op::OpUDiv, k_.types.u32, {selector, b_.const_u32(kSelectorsPerChunk)});
  std::vector<std::pair<uint32_t, Id>> chunk_labels;
  for (const auto& entry : chunks) chunk_labels.emplace_back(entry.first, b_.fresh_id());
  Id merge = b_.fresh_id(), default_label = b_.fresh_id();
  f_.selection_merge(merge);
  f_.switch_(chunk, default_label, chunk_labels);
  for (const auto& [index, label] : chunk_labels) {
    f_.begin_block(label);
    switch_to_depths(selector, chunks[index], default_depth);
  }
  f_.begin_block(default_label);
  branch_to(default_depth);
  f_.begin_block(merge);  // every arm branched away: unreachable
}

void FunctionLowering::switch_to_depths(Id selector, const std::vector<std::pair<uint32_t, uint32_t>>& cases,
                                        uint32_t default_depth) {
  std::map<uint32_t, Id> labels;  // depth -> case block
  labels[default_depth] = b_.fresh_id();
  for (const auto& [value, depth] : cases)
    if (!labels.count(depth)) labels[depth] = b_.fresh_id();
  std::vector<std::pair<uint32_t, Id>> switch_cases;
  for (const auto& [value, depth] : cases) switch_cases.emplace_back(value, labels[depth]);
  Id merge = b_.fresh_id();
  f_.selection_merge(merge);
  f_.switch_(selector, labels[default_depth], switch_cases);
  for (auto [depth, label] : labels) {
    f_.begin_block(label);
    branch_to(depth);
  }
  f_.begin_block(merge);  // every case branched away: unreachable
}

}  // namespace wasmgpu::spirv
