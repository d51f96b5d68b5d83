#include "spirv/stack_analysis.h"

#include <algorithm>
#include <map>

namespace wasmgpu::spirv {
namespace {

using wasm::Opcode;

uint32_t round_up16(uint64_t value) { return uint32_t((value + 15) & ~uint64_t(15)); }
uint32_t round_down16(uint32_t value) { return value & ~15u; }

std::optional<int64_t> const_i32(const wasm::ConstExpr& expr) {
  if (expr.instrs.empty() || expr.instrs[0].op != Opcode::I32Const) return std::nullopt;
  return int64_t(uint32_t(expr.instrs[0].imm64));
}

// What the analysis knows of an i32 value: nothing, a constant, or the stack
// pointer at function entry plus a constant.
struct AbstractValue {
  enum class Kind : uint8_t { Unknown, Const, StackPointer } kind = Kind::Unknown;
  int64_t value = 0;
  static AbstractValue unknown() { return {}; }
  static AbstractValue constant(int64_t v) { return {Kind::Const, v}; }
  static AbstractValue stack_pointer(int64_t delta) { return {Kind::StackPointer, delta}; }
};

struct FunctionStackUse {
  bool uses_stack_pointer = false;
  bool bounded = true;
  uint32_t frame = 0;  // largest distance below the entry stack pointer it moves sp
};

class FrameScanner {
 public:
  FrameScanner(const wasm::Module& module, uint32_t sp, uint32_t stack_lo, uint32_t stack_hi)
      : module_(module), sp_(sp), stack_lo_(stack_lo), stack_hi_(stack_hi) {}

  std::optional<uint32_t> lowest_constant_address;

  // Constant addresses inside the stack region: memory accesses whose address
  // is a constant, and constant call arguments (see Call below).
  //
  // A linear walk over the body: prologues and epilogues are straight-line
  // code, so ignoring control flow (beyond keeping stack heights right) is
  // enough to recognise them. Anything unrecognised stores an unknown value
  // to the stack pointer and makes the function unbounded.
  FunctionStackUse scan(uint32_t function_index) {
    const wasm::Function& function = module_.functions.at(function_index - module_.imported_functions);
    const wasm::FuncType& type = module_.function_type(function_index);
    FunctionStackUse use;
    std::vector<AbstractValue> locals(type.params.size(), AbstractValue::unknown());
    for (size_t i = 0; i < function.locals.size(); ++i) locals.push_back(AbstractValue::constant(0));
    stack_.clear();
    struct Frame { size_t height; uint32_t params, results; };
    std::vector<Frame> frames{{0, 0, uint32_t(type.results.size())}};

    for (const wasm::Instr& instr : function.body) {
      switch (instr.op) {
        case Opcode::I32Const: push(AbstractValue::constant(uint32_t(instr.imm64))); break;
        case Opcode::GlobalGet:
          if (instr.imm0 == sp_) {
            use.uses_stack_pointer = true;
            push(AbstractValue::stack_pointer(0));
          } else {
            push(AbstractValue::unknown());
          }
          break;
        case Opcode::GlobalSet: {
          AbstractValue value = pop();
          if (instr.imm0 != sp_) break;
          use.uses_stack_pointer = true;
          if (value.kind == AbstractValue::Kind::StackPointer) {
            if (value.value < 0) use.frame = std::max<uint32_t>(use.frame, uint32_t(-value.value));
          } else {
            use.bounded = false;
          }
          break;
        }
        case Opcode::I32Add:
        case Opcode::I32Sub:
        case Opcode::I32And: {
          AbstractValue b = pop(), a = pop();
          AbstractValue result = combine(instr.op, a, b);
          // Any address below the entry stack pointer that the function
          // computes is part of its frame, whether or not it moves sp there:
          // leaf functions at -O0 use memory below sp without storing it.
          if (result.kind == AbstractValue::Kind::StackPointer && result.value < 0)
            use.frame = std::max<uint32_t>(use.frame, uint32_t(-result.value));
          push(result);
          break;
        }
        case Opcode::LocalGet: push(locals.at(instr.imm0)); break;
        case Opcode::LocalSet: locals.at(instr.imm0) = pop(); break;
        case Opcode::LocalTee: locals.at(instr.imm0) = stack_.empty() ? AbstractValue{} : stack_.back(); break;
        case Opcode::Block:
        case Opcode::Loop:
        case Opcode::If: {
          if (instr.op == Opcode::If) pop();
          auto [params, results] = module_.block_arity(instr.block);
          frames.push_back({stack_.size() >= params ? stack_.size() - params : 0, params, results});
          break;
        }
        case Opcode::Else:
          stack_.resize(frames.back().height + frames.back().params);
          break;
        case Opcode::End: {
          Frame frame = frames.back();
          if (frames.size() > 1) frames.pop_back();
          stack_.resize(frame.height + frame.results);
          break;
        }
        case Opcode::Call: {
          const wasm::FuncType& callee = module_.function_type(instr.imm0);
          // A constant argument in the stack region is (most likely) a pointer
          // to a frame that wasm-opt folded to a fixed address. Small numbers
          // are not: wasm-ld keeps the first 1 KiB free.
          for (size_t i = 0; i < callee.params.size() && i < stack_.size(); ++i) {
            const AbstractValue& arg = stack_[stack_.size() - 1 - i];
            if (arg.kind == AbstractValue::Kind::Const && arg.value >= 1024) note_constant(uint64_t(arg.value));
          }
          pop_n(callee.params.size());
          for (size_t i = 0; i < callee.results.size(); ++i) push(AbstractValue::unknown());
          break;
        }
        case Opcode::CallIndirect: {
          const wasm::FuncType& callee = module_.types.at(instr.imm0);
          pop_n(callee.params.size() + 1);
          for (size_t i = 0; i < callee.results.size(); ++i) push(AbstractValue::unknown());
          break;
        }
        case Opcode::Drop:
        case Opcode::BrIf:
        case Opcode::BrTable: pop(); break;
        case Opcode::Select:
        case Opcode::SelectTyped: pop_n(3); push(AbstractValue::unknown()); break;
        // Table and reference instructions whose operands the opcode table
        // does not list (their types depend on the table).
        case Opcode::TableGet:
        case Opcode::RefIsNull: pop(); push(AbstractValue::unknown()); break;
        case Opcode::TableSet: pop_n(2); break;
        case Opcode::TableGrow: pop_n(2); push(AbstractValue::unknown()); break;
        case Opcode::TableFill: pop_n(3); break;
        case Opcode::RefNull:
        case Opcode::RefFunc: push(AbstractValue::unknown()); break;
        default: {
          const wasm::OpcodeInfo& op = wasm::info(instr.op);
          if (op.immediate == wasm::ImmediateKind::MemArg) {
            // The address operand is below the stored value for stores.
            size_t address_depth = op.signature.size() >= 3 && op.signature[1] != ':' ? 2 : 1;
            if (stack_.size() >= address_depth) {
              const AbstractValue& address = stack_[stack_.size() - address_depth];
              if (address.kind == AbstractValue::Kind::Const)
                note_constant(uint64_t(address.value) + instr.imm1);
            }
          }
          std::string_view signature = op.signature;
          size_t colon = signature.find(':');
          if (colon == std::string_view::npos) break;  // control: br, return, ...
          pop_n(colon);
          for (size_t i = colon + 1; i < signature.size(); ++i) push(AbstractValue::unknown());
        }
      }
    }
    return use;
  }

 private:
  static AbstractValue combine(Opcode op, AbstractValue a, AbstractValue b) {
    using K = AbstractValue::Kind;
    if (a.kind == K::Const && b.kind == K::Const) {
      uint32_t x = uint32_t(a.value), y = uint32_t(b.value);
      return AbstractValue::constant(op == Opcode::I32Add ? uint32_t(x + y)
                                     : op == Opcode::I32Sub ? uint32_t(x - y) : (x & y));
    }
    if (op == Opcode::I32Add && b.kind == K::StackPointer) std::swap(a, b);
    if (a.kind == K::StackPointer && b.kind == K::Const) {
      int64_t c = int64_t(int32_t(uint32_t(b.value)));
      if (op == Opcode::I32Add) return AbstractValue::stack_pointer(a.value + c);
      if (op == Opcode::I32Sub) return AbstractValue::stack_pointer(a.value - c);
      // sp & -2^k (over-aligned frames) lowers sp by at most 2^k - 1.
      if (op == Opcode::I32And && c < 0 && ((-c) & (-c - 1)) == 0)
        return AbstractValue::stack_pointer(a.value - (-c - 1));
    }
    return AbstractValue::unknown();
  }

  void note_constant(uint64_t address) {
    if (address >= stack_lo_ && address < stack_hi_)
      lowest_constant_address = std::min<uint32_t>(lowest_constant_address.value_or(UINT32_MAX), uint32_t(address));
  }
  void push(AbstractValue value) { stack_.push_back(value); }
  AbstractValue pop() {
    if (stack_.empty()) return AbstractValue::unknown();  // after br/return: polymorphic
    AbstractValue value = stack_.back();
    stack_.pop_back();
    return value;
  }
  void pop_n(size_t n) {
    for (size_t i = 0; i < n; ++i) pop();
  }

  const wasm::Module& module_;
  uint32_t sp_, stack_lo_, stack_hi_;
  std::vector<AbstractValue> stack_;
};

}  // namespace

std::optional<uint32_t> find_stack_pointer(const wasm::Module& module) {
  auto usable = [&](uint32_t index) -> bool {
    if (index < module.imported_globals || index >= module.total_globals()) return false;
    const wasm::Global& global = module.globals[index - module.imported_globals];
    return global.type.type == wasm::ValType::I32 && global.type.is_mutable &&
           const_i32(global.init).has_value();
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

StackLayout analyse_stack(const wasm::Module& module, const CallGraph& graph) {
  StackLayout layout;
  layout.stack_pointer = find_stack_pointer(module);
  if (!layout.stack_pointer) return layout;
  const wasm::Global& sp = module.globals[*layout.stack_pointer - module.imported_globals];
  layout.stack_hi = uint32_t(*const_i32(sp.init));
  uint64_t data_end = 0;
  for (const wasm::DataSegment& segment : module.data) {
    if (segment.mode != wasm::DataSegment::Mode::Active) continue;
    auto offset = const_i32(segment.offset);
    if (!offset) continue;
    uint64_t end = uint64_t(*offset) + segment.bytes.size();
    if (end <= layout.stack_hi) data_end = std::max(data_end, end);
  }
  // wasm-ld starts data (and, without data, the stack region) at 1024.
  if (data_end == 0 && layout.stack_hi > 1024) data_end = 1024;
  layout.stack_lo = std::min(round_up16(data_end), layout.stack_hi);
  layout.window_lo = layout.stack_hi;

  FrameScanner scanner(module, *layout.stack_pointer, layout.stack_lo, layout.stack_hi);
  std::map<uint32_t, uint64_t> need;  // bytes below the entry sp a call may use
  bool uses_stack_pointer = false;
  for (uint32_t function : graph.functions) {  // callees first
    FunctionStackUse use = scanner.scan(function);
    uses_stack_pointer |= use.uses_stack_pointer;
    layout.bounded &= use.bounded;
    uint64_t deepest_callee = 0;
    for (uint32_t callee : graph.callees[function]) deepest_callee = std::max(deepest_callee, need[callee]);
    need[function] = use.frame + deepest_callee;
    // A recursive function's stack need has no bound the code shows: give it
    // the whole region (running past it traps as a shadow stack overflow).
    if (graph.is_recursive(function) && need[function] > 0) layout.bounded = false;
  }
  if (!uses_stack_pointer && !scanner.lowest_constant_address) return layout;

  uint64_t bytes = uint64_t(round_up16(need[graph.functions.back()])) + kStackMargin;
  uint32_t window_lo = layout.stack_lo;
  if (layout.bounded && bytes < layout.stack_hi)
    window_lo = std::max(layout.stack_lo, uint32_t(layout.stack_hi - bytes));
  if (scanner.lowest_constant_address) window_lo = std::min(window_lo, *scanner.lowest_constant_address);
  layout.window_lo = round_down16(window_lo);
  layout.slot_size = round_up16(layout.stack_hi - layout.window_lo);
  if (layout.slot_size == 0) layout.slot_size = 16;
  return layout;
}

}  // namespace wasmgpu::spirv
