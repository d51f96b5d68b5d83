#include "frontend/stack_analysis.h"

#include <algorithm>
#include <map>
#include <set>

#include "wasm/operand_flow.h"

namespace wasmgpu::frontend {
namespace {

using wasm::Opcode;

uint32_t round_up16(uint64_t value) { return uint32_t((value + 15) & ~uint64_t(15)); }
uint32_t round_down16(uint32_t value) { return value & ~15u; }

std::optional<int64_t> const_i32(const wasm::ConstExpr& expr) {
  if (expr.instrs.empty() || expr.instrs[0].op != Opcode::I32Const) return std::nullopt;
  return int64_t(uint32_t(expr.instrs[0].imm64));
}

// What the analysis knows of an i32 value:
// - nothing, or a constant;
// - the stack pointer at function entry plus a constant: exact, or (after
//   paths with different stack pointers joined) a lower bound, the value
//   being at least entry sp + `value`. Lower bounds are all the sizing needs;
// - a stack base: the stack pointer moved by an amount the code shows no
//   bound for (an alloca or VLA, a copy of sp that a loop moves). Memory
//   below it is stack;
// - a frame interior: a stack address plus a run-time index. C keeps such
//   an address inside its object, so it never extends a frame.
struct AbstractValue {
  enum class Kind : uint8_t { Unknown, Const, StackPointer, StackBase, FrameInterior } kind = Kind::Unknown;
  int64_t value = 0;
  bool exact = true;
  static AbstractValue unknown() { return {}; }
  static AbstractValue constant(int64_t v) { return {Kind::Const, v}; }
  static AbstractValue stack_pointer(int64_t delta, bool exact = true) { return {Kind::StackPointer, delta, exact}; }
  static AbstractValue stack_base() { return {Kind::StackBase, 0, false}; }
  static AbstractValue frame_interior() { return {Kind::FrameInterior, 0, false}; }
  bool is_sp() const { return kind == Kind::StackPointer; }
  // The stack pointer, exactly known or not: less a run-time amount, it is an
  // allocation below it.
  bool is_base() const { return kind == Kind::StackPointer || kind == Kind::StackBase; }
  bool from_sp() const { return is_base() || kind == Kind::FrameInterior; }
  bool operator==(const AbstractValue&) const = default;
};

// Where two paths meet: equal values stay, two stack pointer values give the
// lower one as a bound; else a base on either path gives a base, an interior
// an interior, and anything else is unknown.
AbstractValue join(const AbstractValue& a, const AbstractValue& b) {
  if (a == b) return a;
  if (a.is_sp() && b.is_sp()) return AbstractValue::stack_pointer(std::min(a.value, b.value), false);
  if (a.is_base() || b.is_base()) return AbstractValue::stack_base();
  if (a.from_sp() || b.from_sp()) return AbstractValue::frame_interior();
  return AbstractValue::unknown();
}

struct FunctionStackUse {
  bool uses_stack_pointer = false;
  bool bounded = true;
  // Bytes below the entry stack pointer the function and what it calls may
  // use: its own lowest stack address, or a callee's need below the stack
  // pointer at the call.
  uint64_t need = 0;
};

class FrameScanner {
 public:
  FrameScanner(const wasm::Module& module, const CallGraph& graph, const std::map<uint32_t, uint64_t>& need,
               uint32_t sp, uint32_t stack_lo, uint32_t stack_hi)
      : module_(module), graph_(graph), need_(need), sp_(sp), stack_lo_(stack_lo), stack_hi_(stack_hi) {}

  std::optional<uint32_t> lowest_constant_address;

  // Constant addresses inside the stack region: memory accesses whose address
  // is a constant, and constant call arguments (see Call below).
  //
  // One pass over the body in order, following structured control flow far
  // enough to stay sound (a linear walk alone is not: a loop's back edge or
  // the other arm of an `if` brings values the walk has not seen there):
  // - the stack pointer is tracked as it changes: `global.get` reads the
  //   current value (so an alloca after the prologue adds to the frame), the
  //   arms of an `if` start from its entry value, and where paths meet (the
  //   end of a block, branches to it) the lowest value is kept as a bound;
  // - inside a loop, moving the stack pointer below its value at the loop's
  //   entry (an alloca per iteration) makes the function unbounded: the code
  //   shows no bound on the iterations;
  // - locals are followed along the walk the same way: the value last
  //   assigned on the path, the arms of an `if` from its entry, a join where
  //   paths meet (-O2 reuses one local for values of different kinds);
  // - at a loop's entry, a local the loop assigns becomes a stack base, a
  //   frame interior or unknown, from its entry value and what the loop
  //   assigns it (the walk repeats until no more are found: the back edge
  //   brings them);
  // - a callee's need counts from the stack pointer at the call;
  // - storing an unknown value to the stack pointer makes the function
  //   unbounded;
  // - a stack base less a run-time amount is an alloca or a VLA: unbounded.
  //   clang computes those from sp or a copy of it in a local, at -O0 and
  //   -O2, and a leaf function uses the memory without storing sp. A frame
  //   interior less an amount is an index into an object (`&a[k - i]`), which
  //   C keeps inside it.
  FunctionStackUse scan(uint32_t function_index, const wasm::OperandFlow& flow) {
    const wasm::Function& function = module_.functions.at(function_index - module_.imported_functions);
    find_loop_assignments(function);
    loop_from_sp_.clear();
    for (;;) {
      loop_from_sp_grew_ = false;
      FunctionStackUse use = scan_once(function_index, flow);
      if (!loop_from_sp_grew_) return use;
    }
  }

 private:
  FunctionStackUse scan_once(uint32_t function_index, const wasm::OperandFlow& flow) {
    const wasm::Function& function = module_.functions.at(function_index - module_.imported_functions);
    const wasm::FuncType& type = module_.function_type(function_index);
    FunctionStackUse use;
    const size_t params = type.params.size();
    const size_t local_count = params + function.locals.size();
    // Parameters are unknown; other locals start at zero.
    PathState path{AbstractValue::stack_pointer(0),
                   std::vector<AbstractValue>(local_count, AbstractValue::constant(0))};
    for (size_t i = 0; i < params; ++i) path.locals[i] = AbstractValue::unknown();
    AbstractValue& sp = path.sp;  // the current stack pointer
    // What is known of each stack value (wasm/operand_flow.h), set where it is pushed.
    std::vector<AbstractValue> values(flow.value_count(), AbstractValue::unknown());
    size_t ip = 0;
    auto operand = [&](size_t k) -> const AbstractValue& { return values[flow.operands(ip)[k]]; };
    auto set_result = [&](size_t k, const AbstractValue& value) { values[flow.results(ip)[k]] = value; };
    frames_.clear();
    frames_.push_back({false, 0, path, {}, false});
    bool reachable = true;
    size_t loops = 0;  // open loops

    auto note_frame = [&](const AbstractValue& value) {
      if (value.is_sp() && value.value < 0) use.need = std::max<uint64_t>(use.need, uint64_t(-value.value));
    };
    auto branch_to = [&](uint32_t depth) {
      if (depth >= frames_.size()) return;
      ControlFrame& target = frames_[frames_.size() - 1 - depth];
      if (target.is_loop) return;  // back edges: see the loop's entry
      merge_into(target.at_end, path);
    };
    auto call_from_here = [&](uint64_t callee_need) {
      if (!sp.is_sp()) {
        use.bounded = false;
        return;
      }
      uint64_t below = sp.value < 0 ? uint64_t(-sp.value) : 0;
      use.need = std::max(use.need, below + callee_need);
    };
    auto callee_need = [&](uint32_t callee) {
      auto it = need_.find(callee);
      return it == need_.end() ? uint64_t(0) : it->second;
    };

    for (; ip < function.body.size(); ++ip) {
      const wasm::Instr& instr = function.body[ip];
      switch (instr.op) {
        case Opcode::I32Const: set_result(0, AbstractValue::constant(uint32_t(instr.imm64))); break;
        case Opcode::GlobalGet:
          if (instr.imm0 == sp_) {
            use.uses_stack_pointer = true;
            // Below an unknown stack pointer nothing can be bounded.
            if (!sp.is_sp() && reachable) use.bounded = false;
            set_result(0, sp);
          }
          break;
        case Opcode::GlobalSet: {
          AbstractValue value = operand(0);
          if (instr.imm0 != sp_) break;
          use.uses_stack_pointer = true;
          if (!reachable) break;
          note_frame(value);
          // An unknown amount (a VLA, alloca(n)): the memory below it is used.
          if (!value.is_sp()) use.bounded = false;
          if (loops > 0) {
            const AbstractValue& entry = innermost_loop().entry.sp;
            bool not_lower = value.is_sp() && value.exact && entry.is_sp() && entry.exact && value.value >= entry.value;
            if (!not_lower) use.bounded = false;
          }
          sp = value;
          break;
        }
        case Opcode::I32Add:
        case Opcode::I32Sub:
        case Opcode::I32And: {
          const AbstractValue a = operand(0), b = operand(1);
          AbstractValue result = combine(instr.op, a, b);
          // The stack pointer less a run-time amount is an alloca or a VLA:
          // no bound. A difference of two addresses is a size, and an amount
          // added to an address is an index into its frame, which C keeps
          // inside it.
          if (instr.op == Opcode::I32Sub && reachable && a.is_base() && b.kind != AbstractValue::Kind::Const &&
              !b.from_sp())
            use.bounded = false;
          // Any address below the entry stack pointer that the function
          // computes is part of its frame, whether or not it moves sp there:
          // leaf functions at -O0 use memory below sp without storing it.
          note_frame(result);
          set_result(0, result);
          break;
        }
        case Opcode::LocalGet:
          if (instr.imm0 < local_count) set_result(0, path.locals[instr.imm0]);
          break;
        case Opcode::LocalSet: assign_local(path, instr.imm0, operand(0)); break;
        case Opcode::LocalTee:
          assign_local(path, instr.imm0, operand(0));
          set_result(0, operand(0));
          break;
        case Opcode::Block:
        case Opcode::Loop:
        case Opcode::If: {
          bool is_loop = instr.op == Opcode::Loop;
          const uint32_t at = uint32_t(ip);
          if (is_loop) {
            enter_loop(path, at);
            // The parameters at the header: what entered (a back edge's
            // values are not followed).
            for (size_t k = 0; k < flow.results(ip).size(); ++k) set_result(k, operand(k));
          }
          frames_.push_back({is_loop, at, path, {}, instr.op == Opcode::If});
          if (is_loop) ++loops;
          break;
        }
        case Opcode::Else: {
          ControlFrame& frame = frames_.back();
          // The then-arm's end meets the else-arm's at `end`; the else-arm
          // starts from the state at the `if`.
          if (reachable) merge_into(frame.at_end, path);
          frame.implicit_else = false;
          path = frame.entry;
          reachable = true;
          break;
        }
        case Opcode::End: {
          ControlFrame frame = frames_.back();
          if (frames_.size() > 1) frames_.pop_back();
          if (frame.is_loop) {
            --loops;
          } else {
            std::optional<PathState> merged = std::move(frame.at_end);
            if (reachable) merge_into(merged, path);
            if (frame.implicit_else) merge_into(merged, frame.entry);
            if (merged) path = std::move(*merged);
          }
          reachable = true;
          // The results: what falls through and what branches bring, joined.
          for (size_t k = 0; k < flow.results(ip).size(); ++k) {
            const wasm::ValueId result = flow.results(ip)[k];
            std::optional<AbstractValue> joined;
            for (wasm::ValueId in : flow.incoming(result)) joined = joined ? join(*joined, values[in]) : values[in];
            values[result] = joined.value_or(AbstractValue::unknown());
          }
          break;
        }
        case Opcode::Br:
          if (reachable) branch_to(instr.imm0);
          reachable = false;
          break;
        case Opcode::BrIf:
          if (reachable) branch_to(instr.imm0);
          break;
        case Opcode::BrTable:
          if (reachable)
            for (uint32_t depth : function.br_tables.at(instr.imm0)) branch_to(depth);
          reachable = false;
          break;
        case Opcode::Return:
        case Opcode::Unreachable: reachable = false; break;
        case Opcode::Call:
        case Opcode::ReturnCall: {  // a tail call: the caller's frame is counted too (conservative)
          const wasm::FuncType& callee = module_.function_type(instr.imm0);
          // A constant argument in the stack region is (most likely) a pointer
          // to a frame that wasm-opt folded to a fixed address. Small numbers
          // are not: wasm-ld keeps the first 1 KiB free.
          for (size_t i = 0; i < callee.params.size(); ++i) {
            const AbstractValue& arg = operand(i);
            if (arg.kind == AbstractValue::Kind::Const && arg.value >= 1024) note_constant(uint64_t(arg.value));
          }
          if (reachable && instr.imm0 >= module_.imported_functions) call_from_here(callee_need(instr.imm0));
          if (instr.op == Opcode::ReturnCall) reachable = false;
          break;
        }
        case Opcode::CallIndirect:
        case Opcode::ReturnCallIndirect: {
          // Any function the call graph says this one may reach.
          uint64_t deepest = 0;
          if (function_index < graph_.callees.size())
            for (uint32_t target : graph_.callees[function_index]) deepest = std::max(deepest, callee_need(target));
          if (reachable) call_from_here(deepest);
          if (instr.op == Opcode::ReturnCallIndirect) reachable = false;
          break;
        }
        case Opcode::Select:
        case Opcode::SelectTyped: set_result(0, join(operand(0), operand(1))); break;
        // Everything else gives values the analysis knows nothing of.
        default: {
          const wasm::OpcodeInfo& op = wasm::info(instr.op);
          if (op.immediate == wasm::ImmediateKind::MemArg && instr.memory == 0) {
            // The address operand is the first one.
            const AbstractValue& address = operand(0);
            if (address.kind == AbstractValue::Kind::Const) note_constant(uint64_t(address.value) + instr.imm1);
          }
        }
      }
    }
    return use;
  }

  static AbstractValue combine(Opcode op, AbstractValue a, AbstractValue b) {
    using K = AbstractValue::Kind;
    if (a.kind == K::Const && b.kind == K::Const) {
      uint32_t x = uint32_t(a.value), y = uint32_t(b.value);
      return AbstractValue::constant(op == Opcode::I32Add   ? uint32_t(x + y)
                                     : op == Opcode::I32Sub ? uint32_t(x - y)
                                                            : (x & y));
    }
    if (op == Opcode::I32Add && b.kind == K::StackPointer) std::swap(a, b);
    if (a.kind == K::StackPointer && b.kind == K::Const) {
      int64_t c = int64_t(int32_t(uint32_t(b.value)));
      if (op == Opcode::I32Add) return AbstractValue::stack_pointer(a.value + c, a.exact);
      if (op == Opcode::I32Sub) return AbstractValue::stack_pointer(a.value - c, a.exact);
      // sp & -2^k (over-aligned frames) lowers sp by at most 2^k - 1: a bound.
      if (op == Opcode::I32And && c < 0 && ((-c) & (-c - 1)) == 0)
        return AbstractValue::stack_pointer(a.value - (-c - 1), false);
    }
    // Two stack addresses subtracted give a size; a base less or plus a
    // constant stays a base; a run-time amount subtracted from a base is an
    // allocation below it (a base), added to one is an index (an interior).
    if (op == Opcode::I32Sub && a.from_sp() && b.from_sp()) return AbstractValue::unknown();
    if (op == Opcode::I32Add && b.is_base() && !a.from_sp()) std::swap(a, b);
    if (a.is_base()) {
      if (b.kind == K::Const || op != Opcode::I32Add) return AbstractValue::stack_base();
      return b.is_base() ? AbstractValue::stack_base() : AbstractValue::frame_interior();
    }
    if (b.is_base()) return AbstractValue::stack_base();
    if (a.from_sp() || b.from_sp()) return AbstractValue::frame_interior();
    return AbstractValue::unknown();
  }

  void note_constant(uint64_t address) {
    if (address >= stack_lo_ && address < stack_hi_)
      lowest_constant_address = std::min<uint32_t>(lowest_constant_address.value_or(UINT32_MAX), uint32_t(address));
  }

  // What the walk knows at a point of the body: the stack pointer and every
  // local.
  struct PathState {
    AbstractValue sp;
    std::vector<AbstractValue> locals;
  };
  static void merge_into(std::optional<PathState>& into, const PathState& from) {
    if (!into) {
      into = from;
      return;
    }
    into->sp = join(into->sp, from.sp);
    for (size_t i = 0; i < into->locals.size(); ++i) into->locals[i] = join(into->locals[i], from.locals[i]);
  }

  struct ControlFrame {
    bool is_loop;
    uint32_t at;                      // the instruction that opened it
    PathState entry;                  // at the block, loop or if (after a loop's widening)
    std::optional<PathState> at_end;  // joined over branches to the end (and a then-arm's end)
    bool implicit_else;               // an `if` without `else`: the entry also reaches the end
  };

  // The locals each loop assigns (nested loops' included), by the loop's
  // instruction index.
  void find_loop_assignments(const wasm::Function& function) {
    loop_assigns_.clear();
    std::vector<std::pair<uint32_t, bool>> open;  // (instruction, is a loop) per open block
    for (uint32_t at = 0; at < function.body.size(); ++at) {
      const wasm::Instr& instr = function.body[at];
      if (instr.op == Opcode::Block || instr.op == Opcode::If || instr.op == Opcode::Loop) {
        open.push_back({at, instr.op == Opcode::Loop});
        if (instr.op == Opcode::Loop) loop_assigns_[at];
      } else if (instr.op == Opcode::End && !open.empty()) {
        open.pop_back();
      } else if (instr.op == Opcode::LocalSet || instr.op == Opcode::LocalTee) {
        for (const auto& [opened, is_loop] : open)
          if (is_loop) loop_assigns_[opened].insert(instr.imm0);
      }
    }
  }
  // A back edge may bring any value the loop assigns: a stack base where
  // the entry or an assignment in the loop gives a base (a stack pointer the
  // loop moves has no bound), an interior where one gives an interior, else
  // unknown.
  void enter_loop(PathState& path, uint32_t at) {
    for (uint32_t local : loop_assigns_[at]) {
      if (local >= path.locals.size()) continue;
      AbstractValue& value = path.locals[local];
      auto assigned = loop_from_sp_.find({at, local});
      const AbstractValue::Kind in_loop =
          assigned == loop_from_sp_.end() ? AbstractValue::Kind::Unknown : assigned->second;
      if (value.is_base() || in_loop == AbstractValue::Kind::StackBase)
        value = AbstractValue::stack_base();
      else if (value.from_sp() || in_loop == AbstractValue::Kind::FrameInterior)
        value = AbstractValue::frame_interior();
      else
        value = AbstractValue::unknown();
    }
  }

  const ControlFrame& innermost_loop() const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->is_loop) return *it;
    return frames_.front();
  }
  // A value derived from sp, assigned inside loops, reaches each of their
  // entries through the back edge.
  void assign_local(PathState& path, uint32_t index, const AbstractValue& value) {
    if (index >= path.locals.size()) return;
    path.locals[index] = value;
    if (!value.from_sp()) return;
    const AbstractValue::Kind kind =
        value.is_base() ? AbstractValue::Kind::StackBase : AbstractValue::Kind::FrameInterior;
    for (const ControlFrame& frame : frames_) {
      if (!frame.is_loop) continue;
      auto [it, inserted] = loop_from_sp_.insert({{frame.at, index}, kind});
      if (inserted || (kind == AbstractValue::Kind::StackBase && it->second != kind)) {
        it->second = kind;
        loop_from_sp_grew_ = true;
      }
    }
  }

  const wasm::Module& module_;
  const CallGraph& graph_;
  const std::map<uint32_t, uint64_t>& need_;
  uint32_t sp_, stack_lo_, stack_hi_;
  std::vector<ControlFrame> frames_;
  std::map<uint32_t, std::set<uint32_t>> loop_assigns_;  // loop instruction -> locals it assigns
  // (loop, local) -> the strongest kind from sp assigned to it in the loop
  // (StackBase over FrameInterior).
  std::map<std::pair<uint32_t, uint32_t>, AbstractValue::Kind> loop_from_sp_;
  bool loop_from_sp_grew_ = false;
};

}  // namespace

std::optional<uint32_t> find_stack_pointer(const wasm::Module& module) {
  auto usable = [&](uint32_t index) -> bool {
    if (index < module.imported_globals || index >= module.total_globals()) return false;
    const wasm::Global& global = module.globals[index - module.imported_globals];
    return global.type.type == wasm::ValType::I32 && global.type.is_mutable && const_i32(global.init).has_value();
  };
  for (const auto& [index, name] : module.names.global_names)
    if (name == "__stack_pointer") return usable(index) ? std::optional(index) : std::nullopt;
  // Without names, global 0 is the stack pointer only when it looks like one:
  // wasm-ld puts it first, unexported, starting at the 16-aligned top of a stack
  // of at least 1 KiB inside the initial memory. Other modules' first globals
  // (the spec tests', hand-written ones) must stay ordinary instance globals,
  // shared by invocations and persistent across launches.
  if (!module.names.global_names.empty() || !usable(0) || module.memories.empty()) return std::nullopt;
  for (const wasm::Export& e : module.exports)
    if (e.kind == wasm::ExternalKind::Global && e.index == 0) return std::nullopt;
  uint64_t top = uint32_t(*const_i32(module.globals[0].init));
  uint64_t memory_bytes = module.memories[0].limits.min * 65536;
  if (top < 1024 || top % 16 != 0 || top > memory_bytes) return std::nullopt;
  return 0;
}

StackLayout analyse_stack(const wasm::Module& module, const CallGraph& graph,
                          const std::map<uint32_t, wasm::OperandFlow>* flows) {
  StackLayout layout;
  layout.stack_pointer = find_stack_pointer(module);
  if (!layout.stack_pointer) return layout;
  const wasm::Global& sp = module.globals[*layout.stack_pointer - module.imported_globals];
  layout.stack_hi = uint32_t(*const_i32(sp.init));
  uint64_t data_end = 0;
  for (const wasm::DataSegment& segment : module.data) {
    // The stack lives in memory 0; other memories' segments say nothing of it.
    if (segment.mode != wasm::DataSegment::Mode::Active || segment.memory != 0) continue;
    auto offset = const_i32(segment.offset);
    if (!offset) continue;
    uint64_t end = uint64_t(*offset) + segment.bytes.size();
    if (end <= layout.stack_hi) data_end = std::max(data_end, end);
  }
  // wasm-ld starts data (and, without data, the stack region) at 1024.
  if (data_end == 0 && layout.stack_hi > 1024) data_end = 1024;
  layout.stack_lo = std::min(round_up16(data_end), layout.stack_hi);
  // Zero-initialised data (.bss) has no segment: wasm-ld places it after the
  // segments and before the stack, which is its default size
  // (kDefaultStackSize) below the initial stack pointer. Without this, bss
  // variables would count as stack: per-invocation copies, and accesses below
  // the window trapping as a stack overflow.
  if (layout.stack_hi >= kDefaultStackSize)
    layout.stack_lo = std::max(layout.stack_lo, layout.stack_hi - kDefaultStackSize);
  layout.window_lo = layout.stack_hi;

  std::map<uint32_t, uint64_t> need;  // bytes below the entry sp a call may use
  FrameScanner scanner(module, graph, need, *layout.stack_pointer, layout.stack_lo, layout.stack_hi);
  bool uses_stack_pointer = false;
  uint64_t deepest = 0;
  for (uint32_t function : graph.functions) {  // callees first
    const wasm::OperandFlow* flow = nullptr;
    if (flows) {
      auto found = flows->find(function);
      if (found != flows->end()) flow = &found->second;
    }
    std::optional<wasm::OperandFlow> built;
    if (!flow)
      flow =
          &built.emplace(wasm::OperandFlow::build(module, module.functions.at(function - module.imported_functions)));
    FunctionStackUse use = scanner.scan(function, *flow);
    uses_stack_pointer |= use.uses_stack_pointer;
    layout.bounded &= use.bounded;
    need[function] = use.need;
    // A recursive function's stack need has no bound the code shows: give it
    // the whole region (running past it traps as a shadow stack overflow).
    if (graph.is_recursive(function) && need[function] > 0) layout.bounded = false;
    // Every root's need (a shader may have several; callees need no more
    // than their callers).
    deepest = std::max(deepest, use.need);
  }
  if (!uses_stack_pointer && !scanner.lowest_constant_address) return layout;

  uint64_t bytes = uint64_t(round_up16(deepest)) + kStackMargin;
  uint32_t window_lo = layout.stack_lo;
  if (layout.bounded && bytes < layout.stack_hi)
    window_lo = std::max(layout.stack_lo, uint32_t(layout.stack_hi - bytes));
  if (scanner.lowest_constant_address) window_lo = std::min(window_lo, *scanner.lowest_constant_address);
  layout.window_lo = round_down16(window_lo);
  layout.slot_size = round_up16(layout.stack_hi - layout.window_lo);
  if (layout.slot_size == 0) layout.slot_size = 16;
  return layout;
}

}  // namespace wasmgpu::frontend
