#include "wgsl/uniformity.h"

#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/intrinsic_catalog.h"
#include "wasm/opcode.h"
#include "wgsl/branch_targets.h"

namespace wasmgpu::wgsl {
namespace {

using frontend::IntrinsicKind;
using wasm::Instr;
using wasm::Opcode;
using wasm::ValType;

Error refuse(const wasm::Module& module, uint32_t function, const std::string& why) {
  return make_error(ErrorCode::Unsupported,
                    fmt::format("function '{}' {}: not handled by the WGSL back end yet (docs/webgpu.md)",
                                module.function_name(function), why));
}

const wasm::Function& body_of(const wasm::Module& module, uint32_t function) {
  return module.functions.at(function - module.imported_functions);
}

// Per local: whether it holds the same value in every invocation of the
// workgroup at this point (flow-sensitive, joined where paths meet).
using State = std::vector<bool>;

void join(State& into, const State& from) {
  for (size_t i = 0; i < into.size(); ++i) into[i] = into[i] && from[i];
}

void join_values(std::vector<bool>& into, const std::vector<bool>& from) {
  for (size_t i = 0; i < into.size() && i < from.size(); ++i) into[i] = into[i] && from[i];
}

// An open construct (the function itself at the bottom).
struct Frame {
  Opcode op = Opcode::Nop;  // Block, Loop, If; Nop for the function
  size_t at = 0;            // its instruction index
  bool targeted = false;    // some branch targets it (a WGSL loop in the writer)
  bool nonuniform_condition = false;
  // Some invocations left through a branch taken in non-uniform control flow:
  // the rest of the construct is non-uniform.
  bool tainted = false;
  std::string taint_reason;
  size_t height = 0, params = 0, results = 0;
  std::vector<bool> result_values;  // every value a branch carried to the end was uniform
  std::optional<State> end_state;   // join of the states branches carried to the end
  State entry_state;                // an if's (for its else arm), a loop's head
  std::vector<bool> entry_values;   // an if's or a loop's parameters
  std::optional<State> back_state;  // a loop's: join of the states of branches back
  std::vector<bool> back_values;
  bool divergent_at_start = false;
  bool else_seen = false;
};

class Analysis {
 public:
  Analysis(const wasm::Module& module, uint32_t index, std::vector<bool> params, const BarrierFacts& facts)
      : module_(module),
        index_(index),
        function_(body_of(module, index)),
        type_(module.function_type(index)),
        params_(std::move(params)),
        facts_(facts) {}

  Status run();
  // Per barrier function this one calls: whether each argument was uniform at
  // every call site.
  std::map<uint32_t, std::vector<bool>> call_args;

 private:
  Error refuse(const std::string& why) const { return wgsl::refuse(module_, index_, why); }
  bool context_uniform(std::string* reason = nullptr) const;
  bool pop() {
    bool v = stack_.back();
    stack_.pop_back();
    return v;
  }
  std::vector<bool> top(size_t count) const {
    return std::vector<bool>(stack_.end() - std::ptrdiff_t(count), stack_.end());
  }
  void taint(size_t from, const std::string& reason);
  // Whether the writer's `pending` variable may take a non-uniform value
  // here: Tint then takes every later test of it as non-uniform, which only
  // matters where a barrier can follow (later in the function, or in an
  // enclosing loop that holds one).
  bool pending_may_diverge() const;
  Status branch(uint32_t depth, bool condition_uniform);
  void leave(bool uniform);
  Status require_uniform(const std::string& what);
  Status call(uint32_t callee);
  void open(const Instr& instr, size_t at);
  // Returns the instruction index to go on from (a loop's start when its
  // head state changed), or nullopt.
  std::optional<size_t> close(const Instr& instr);
  Status instruction(const Instr& instr);

  const wasm::Module& module_;
  uint32_t index_;
  const wasm::Function& function_;
  const wasm::FuncType& type_;
  std::vector<bool> params_;
  const BarrierFacts& facts_;
  std::vector<bool> targeted_;
  std::set<size_t> divergent_;  // loops whose iterations may differ between invocations
  std::vector<Frame> frames_;
  std::vector<bool> stack_;
  State state_;
  bool dead_ = false;
  uint32_t dead_depth_ = 0;
  size_t at_ = 0;            // the instruction being followed
  size_t last_barrier_ = 0;  // the last barrier (or call of a function with one)
};

bool Analysis::pending_may_diverge() const {
  if (at_ > last_barrier_)
    return std::none_of(frames_.begin(), frames_.end(), [&](const Frame& frame) {
      return frame.op == Opcode::Loop && facts_.is_barrier_loop(index_, frame.at);
    });
  return false;
}

bool Analysis::context_uniform(std::string* reason) const {
  for (const Frame& frame : frames_) {
    const char* why = nullptr;
    if (frame.nonuniform_condition) why = "inside an if on a value that may differ between invocations";
    if (frame.op == Opcode::Loop && divergent_.count(frame.at))
      why = frame.targeted && !facts_.is_barrier_loop(index_, frame.at)
                ? "after a loop that invocations may leave at different iterations"
                : "inside a loop that invocations may leave at different iterations";
    if (frame.tainted) {
      if (reason) *reason = frame.taint_reason;
      return false;
    }
    if (why) {
      if (reason) *reason = why;
      return false;
    }
  }
  return true;
}

void Analysis::taint(size_t from, const std::string& reason) {
  for (size_t k = from; k < frames_.size(); ++k) {
    Frame& frame = frames_[k];
    if (!frame.tainted) frame.taint_reason = reason;
    frame.tainted = true;
    if (frame.op == Opcode::Loop) divergent_.insert(frame.at);
  }
}

// A return (or unreachable, which traps and returns): when some invocations
// may take it and others not, the rest of the function is non-uniform.
void Analysis::leave(bool uniform) {
  if (!uniform) taint(0, "after a return that some invocations may take and others not");
}

Status Analysis::branch(uint32_t depth, bool condition_uniform) {
  const size_t target = frames_.size() - 1 - depth;
  const bool uniform = condition_uniform && context_uniform();
  if (target == 0) {
    leave(uniform);
    return {};
  }
  Frame& frame = frames_[target];
  const bool to_loop = frame.op == Opcode::Loop;
  std::vector<bool> values = top(to_loop ? frame.params : frame.results);
  if (!uniform) {
    // A branch across targeted constructs goes through the writer's
    // `pending` variable, which Tint then sees as non-uniform at every later
    // test of it in the function (function_writer.cpp).
    for (size_t k = target + 1; k < frames_.size(); ++k)
      if (frames_[k].targeted && !pending_may_diverge())
        return refuse(
            "branches out of nested blocks on a value that may differ between invocations, in a function that "
            "reaches a barrier (the WGSL for such a branch is not provably uniform)");
    taint(target, "after a branch that some invocations may take and others not");
  }
  for (auto&& v : values) v = v && uniform;
  if (to_loop) {
    if (frame.back_state) {
      join(*frame.back_state, state_);
    } else {
      frame.back_state = state_;
    }
    join_values(frame.back_values, values);
  } else {
    if (frame.end_state) {
      join(*frame.end_state, state_);
    } else {
      frame.end_state = state_;
    }
    join_values(frame.result_values, values);
  }
  return {};
}

Status Analysis::require_uniform(const std::string& what) {
  std::string reason;
  if (context_uniform(&reason)) return {};
  return refuse(
      fmt::format("{} {} (WGSL needs barriers in uniform control flow, and this back end could not prove that every "
                  "invocation of the workgroup reaches it)",
                  what, reason));
}

Status Analysis::call(uint32_t callee) {
  const wasm::FuncType& type = module_.function_type(callee);
  std::vector<bool> args = top(type.params.size());
  stack_.resize(stack_.size() - type.params.size());
  bool result = false;
  if (const frontend::Intrinsic* intrinsic = frontend::find_intrinsic(module_, callee)) {
    if (is_barrier_intrinsic(module_, callee))
      WASMGPU_TRY(require_uniform("calls wasmgpu." + std::string(intrinsic->name)));
    // The workgroup size is the override constants: the same everywhere.
    if (intrinsic->kind == IntrinsicKind::WorkgroupSize) result = args.at(0);
  } else if (facts_.barrier_functions.count(callee)) {
    WASMGPU_TRY(require_uniform("calls '" + module_.function_name(callee) + "', which reaches a barrier,"));
    auto [it, inserted] = call_args.emplace(callee, args);
    if (!inserted) join_values(it->second, args);
  }
  for (size_t i = 0; i < type.results.size(); ++i) stack_.push_back(result);
  return {};
}

void Analysis::open(const Instr& instr, size_t at) {
  Frame frame;
  frame.op = instr.op;
  frame.at = at;
  frame.targeted = targeted_[at];
  if (instr.block.kind == wasm::BlockType::Kind::Value) {
    frame.results = 1;
  } else if (instr.block.kind == wasm::BlockType::Kind::TypeIndex) {
    const wasm::FuncType& type = module_.types.at(instr.block.type_index);
    frame.params = type.params.size();
    frame.results = type.results.size();
  }
  if (instr.op == Opcode::If) frame.nonuniform_condition = !pop();
  frame.height = stack_.size() - frame.params;
  frame.result_values.assign(frame.results, true);
  frame.entry_values = top(frame.params);
  frame.entry_state = state_;
  frame.back_values.assign(frame.params, true);
  frame.divergent_at_start = divergent_.count(at) != 0;
  frames_.push_back(std::move(frame));
}

std::optional<size_t> Analysis::close(const Instr& instr) {
  Frame& frame = frames_.back();
  const bool reachable = !dead_;
  const bool uniform_here = context_uniform();
  std::vector<bool> falling;
  if (reachable) {
    falling = top(frame.results);
    for (auto&& v : falling) v = v && uniform_here;
  }
  if (instr.op == Opcode::Else) {
    if (reachable) {
      if (frame.end_state) {
        join(*frame.end_state, state_);
      } else {
        frame.end_state = state_;
      }
      join_values(frame.result_values, falling);
    }
    frame.else_seen = true;
    frame.tainted = false;
    state_ = frame.entry_state;
    stack_.resize(frame.height);
    stack_.insert(stack_.end(), frame.entry_values.begin(), frame.entry_values.end());
    dead_ = false;
    return std::nullopt;
  }
  if (frame.op == Opcode::Nop) {  // the function's end
    frames_.pop_back();
    return std::nullopt;
  }
  if (frame.op == Opcode::Loop) {
    if (frame.back_state) {
      State head = frame.entry_state;
      join(head, *frame.back_state);
      std::vector<bool> head_values = frame.entry_values;
      join_values(head_values, frame.back_values);
      const bool diverged = divergent_.count(frame.at) != 0 && !frame.divergent_at_start;
      if (head != frame.entry_state || head_values != frame.entry_values || diverged) {
        // Go round again from the joined head state.
        const size_t at = frame.at;
        Frame again = std::move(frame);
        frames_.pop_back();
        state_ = head;
        stack_.resize(again.height);
        stack_.insert(stack_.end(), head_values.begin(), head_values.end());
        again.entry_state = head;
        again.entry_values = head_values;
        again.tainted = false;
        again.back_state.reset();
        again.back_values.assign(again.params, true);
        again.divergent_at_start = divergent_.count(at) != 0;
        frames_.push_back(std::move(again));
        dead_ = false;
        dead_depth_ = 0;
        return at;
      }
    }
    // Nothing branches to a loop's end: only falling through reaches it.
    frames_.pop_back();
    stack_.resize(frame.height);
    if (reachable) {
      stack_.insert(stack_.end(), falling.begin(), falling.end());
    } else {
      stack_.resize(frame.height + frame.results, false);
    }
    dead_ = !reachable;
    return std::nullopt;
  }
  Frame closed = std::move(frame);
  frames_.pop_back();
  std::optional<State> after = closed.end_state;
  std::vector<bool> values = closed.result_values;
  auto arrive = [&](const State& state, const std::vector<bool>& carried) {
    if (after) {
      join(*after, state);
    } else {
      after = state;
    }
    join_values(values, carried);
  };
  if (reachable) arrive(state_, falling);
  if (closed.op == Opcode::If && !closed.else_seen) {
    // The arm not written: the parameters pass through as the results.
    std::vector<bool> passed = closed.entry_values;
    const bool uniform = context_uniform() && !closed.nonuniform_condition;
    for (auto&& v : passed) v = v && uniform;
    arrive(closed.entry_state, passed);
  }
  stack_.resize(closed.height);
  stack_.insert(stack_.end(), values.begin(), values.end());
  stack_.resize(closed.height + closed.results, false);
  dead_ = !after.has_value();
  if (after) state_ = *after;
  return std::nullopt;
}

Status Analysis::instruction(const Instr& instr) {
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  switch (instr.op) {
    case Opcode::Nop: return {};
    case Opcode::Unreachable:
    case Opcode::Return:
      leave(context_uniform());
      dead_ = true;
      return {};
    case Opcode::Br:
      WASMGPU_TRY(branch(instr.imm0, true));
      dead_ = true;
      return {};
    case Opcode::BrIf: {
      bool condition = pop();
      return branch(instr.imm0, condition);
    }
    case Opcode::BrTable: {
      bool selector = pop();
      std::set<uint32_t> depths(function_.br_tables.at(instr.imm0).begin(), function_.br_tables.at(instr.imm0).end());
      if (depths.size() > 1 && !(selector && context_uniform()) && !pending_may_diverge())
        return refuse(
            "has a br_table (switch) on a value that may differ between invocations, in a function that reaches a "
            "barrier (its WGSL is not provably uniform)");
      for (uint32_t depth : depths) WASMGPU_TRY(branch(depth, selector));
      dead_ = true;
      return {};
    }
    case Opcode::Call: return call(instr.imm0);
    case Opcode::ReturnCall:
      WASMGPU_TRY(call(instr.imm0));
      leave(context_uniform());
      dead_ = true;
      return {};
    case Opcode::Drop: pop(); return {};
    case Opcode::Select:
    case Opcode::SelectTyped: {
      bool c = pop(), b = pop(), a = pop();
      stack_.push_back(a && b && c);
      return {};
    }
    case Opcode::LocalGet: stack_.push_back(state_.at(instr.imm0)); return {};
    case Opcode::LocalSet: state_.at(instr.imm0) = pop() && context_uniform(); return {};
    case Opcode::LocalTee: state_.at(instr.imm0) = stack_.back() && context_uniform(); return {};
    case Opcode::GlobalGet: {
      // Immutable globals are WGSL constants; the stack pointer is a
      // var<private>, which Tint takes as non-uniform.
      const bool immutable = !module_.imported_global(instr.imm0) &&
                             !module_.globals.at(instr.imm0 - module_.imported_globals).type.is_mutable;
      stack_.push_back(immutable);
      return {};
    }
    case Opcode::GlobalSet: pop(); return {};
    case Opcode::MemorySize: stack_.push_back(true); return {};
    case Opcode::AtomicFence: return require_uniform("uses atomic.fence (written as a WGSL barrier)");
    default: break;
  }
  if (info.typed_by_hand)
    return refuse("uses " + std::string(info.text) + ", which the barrier uniformity check does not follow");
  // Integer arithmetic of uniform operands is uniform. Loads, atomics and
  // float operations are not (the float helpers read var<private>s).
  bool uniform = info.cls == wasm::OpcodeClass::Numeric || info.cls == wasm::OpcodeClass::Comparison;
  auto integer = [](ValType t) { return t == ValType::I32 || t == ValType::I64; };
  uniform = uniform && std::all_of(info.params.begin(), info.params.end(), integer) &&
            std::all_of(info.results.begin(), info.results.end(), integer);
  for (size_t i = 0; i < info.params.size(); ++i) uniform = pop() && uniform;
  for (size_t i = 0; i < info.results.size(); ++i) stack_.push_back(uniform);
  return {};
}

Status Analysis::run() {
  // Which constructs a branch targets (as the writer finds them).
  targeted_ = branch_targets(function_);
  state_.assign(type_.params.size() + function_.locals.size(), true);
  for (size_t i = 0; i < type_.params.size(); ++i) state_[i] = params_.at(i);
  Frame function_frame;
  function_frame.results = type_.results.size();
  function_frame.result_values.assign(function_frame.results, true);
  frames_.push_back(function_frame);
  for (size_t i = 0; i < function_.body.size(); ++i) {
    const Instr& instr = function_.body[i];
    if (instr.op == Opcode::AtomicFence ||
        ((instr.op == Opcode::Call || instr.op == Opcode::ReturnCall) &&
         (is_barrier_intrinsic(module_, instr.imm0) || facts_.barrier_functions.count(instr.imm0))))
      last_barrier_ = i;
  }
  for (size_t i = 0; i < function_.body.size(); ++i) {
    const Instr& instr = function_.body[i];
    at_ = i;
    const bool opens = instr.op == Opcode::Block || instr.op == Opcode::Loop || instr.op == Opcode::If;
    if (dead_ && skip_dead(instr, dead_depth_)) continue;
    if (opens) {
      open(instr, i);
    } else if (instr.op == Opcode::End || instr.op == Opcode::Else) {
      if (frames_.empty()) break;
      if (std::optional<size_t> again = close(instr)) i = *again;
    } else {
      WASMGPU_TRY(instruction(instr));
    }
  }
  return {};
}

// Whether `function`'s own body calls a barrier intrinsic or uses atomic.fence.
bool calls_barrier(const wasm::Module& module, uint32_t function, const std::set<uint32_t>& barrier_functions) {
  for (const Instr& instr : body_of(module, function).body) {
    if (instr.op == Opcode::AtomicFence) return true;
    if ((instr.op == Opcode::Call || instr.op == Opcode::ReturnCall) &&
        (is_barrier_intrinsic(module, instr.imm0) || barrier_functions.count(instr.imm0)))
      return true;
  }
  return false;
}

}  // namespace

bool is_barrier_intrinsic(const wasm::Module& module, uint32_t callee) {
  const frontend::Intrinsic* intrinsic = frontend::find_intrinsic(module, callee);
  return intrinsic && (intrinsic->kind == IntrinsicKind::Barrier || intrinsic->kind == IntrinsicKind::MemoryBarrier ||
                       intrinsic->kind == IntrinsicKind::WorkgroupMemoryBarrier);
}

BarrierFacts find_barriers(const wasm::Module& module, const frontend::CallGraph& graph) {
  BarrierFacts facts;
  // Callees come before callers in the graph.
  for (uint32_t function : graph.functions) {
    if (module.imported_function(function)) continue;
    if (!calls_barrier(module, function, facts.barrier_functions)) continue;
    facts.barrier_functions.insert(function);
    std::vector<size_t> loops;  // open constructs: a loop's index, or SIZE_MAX
    const std::vector<Instr>& body = body_of(module, function).body;
    for (size_t i = 0; i < body.size(); ++i) {
      const Instr& instr = body[i];
      if (instr.op == Opcode::Block || instr.op == Opcode::If) loops.push_back(SIZE_MAX);
      if (instr.op == Opcode::Loop) loops.push_back(i);
      if (instr.op == Opcode::End && !loops.empty()) loops.pop_back();
      const bool barrier = instr.op == Opcode::AtomicFence ||
                           ((instr.op == Opcode::Call || instr.op == Opcode::ReturnCall) &&
                            (is_barrier_intrinsic(module, instr.imm0) || facts.barrier_functions.count(instr.imm0)));
      if (barrier)
        for (size_t at : loops)
          if (at != SIZE_MAX) facts.barrier_loops[function].insert(at);
    }
  }
  return facts;
}

Status check_barrier_uniformity(const wasm::Module& module, const frontend::CallGraph& graph, uint32_t kernel,
                                const BarrierFacts& facts) {
  // Callers first: a function's parameters are uniform where every call
  // site passed uniform values.
  std::map<uint32_t, std::vector<bool>> params;
  std::vector<bool> kernel_params(module.function_type(kernel).params.size(), true);
  kernel_params.at(0) = false;  // the invocation index
  params[kernel] = kernel_params;
  for (auto it = graph.functions.rbegin(); it != graph.functions.rend(); ++it) {
    const uint32_t function = *it;
    if (!facts.barrier_functions.count(function)) continue;
    auto found = params.find(function);
    if (found == params.end()) continue;  // reached only from functions without barriers: not here
    Analysis analysis(module, function, found->second, facts);
    WASMGPU_TRY(analysis.run());
    for (const auto& [callee, args] : analysis.call_args) {
      auto [at, inserted] = params.emplace(callee, args);
      if (!inserted) join_values(at->second, args);
    }
  }
  return {};
}

}  // namespace wasmgpu::wgsl
