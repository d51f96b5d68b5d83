#include "frontend/pointer_provenance.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <span>
#include <unordered_map>

#include "frontend/intrinsic_catalog.h"
#include "frontend/loop_induction.h"
#include "wasm/operand_flow.h"
#include "wasm/opcode.h"

namespace wasmgpu::frontend {

namespace {

using wasm::Opcode;
using Fact = PointerFact;
using Base = PointerFact::Base;

// Rounds of a loop body after which values that still change are given up on.
constexpr int kWideningRounds = 4;

uint32_t low_mask(uint32_t bits) { return bits >= 32 ? ~0u : (1u << bits) - 1; }

Fact make(Base base, uint32_t param, uint32_t bits, uint64_t residue) {
  Fact fact;
  if (base == Base::Unknown) return fact;
  fact.base = base;
  fact.param = base == Base::Param ? param : 0;
  fact.known_bits = uint8_t(std::min<uint32_t>(bits, 32));
  fact.residue = uint32_t(residue) & low_mask(fact.known_bits);
  return fact;
}

// The range an absolute value may take; every value for the other bases.
ValueRange range_of(const Fact& a) { return a.base == Base::Absolute ? a.range : ValueRange::full(); }

Fact with_range(Fact a, const ValueRange& range) {
  if (a.base == Base::Absolute) a.range = range;
  return a;
}

Fact absolute(uint64_t value) {
  return with_range(make(Base::Absolute, 0, 32, value), ValueRange::constant(int64_t(value)));
}
Fact number_in(const ValueRange& range) { return with_range(make(Base::Absolute, 0, 0, 0), range); }
Fact unknown() { return {}; }

bool same_base(const Fact& a, const Fact& b) {
  return a.base == b.base && (a.base != Base::Param || a.param == b.param);
}

Fact join(const Fact& a, const Fact& b) {
  if (!same_base(a, b)) return unknown();
  uint32_t bits = std::min(a.known_bits, b.known_bits);
  uint32_t differ = (a.residue ^ b.residue) & low_mask(bits);
  if (differ) bits = uint32_t(std::countr_zero(differ));
  return with_range(make(a.base, a.param, bits, a.residue), range_of(a).join(range_of(b)));
}

bool is_comparison(Opcode op) { return wasm::info(op).cls == wasm::OpcodeClass::Comparison; }

// The values a load of fewer than 4 bytes can give.
std::optional<ValueRange> loaded_range(Opcode op) {
  switch (op) {
    case Opcode::I32Load8U: return ValueRange::between(0, 0xFF);
    case Opcode::I32Load16U: return ValueRange::between(0, 0xFFFF);
    case Opcode::I32Load8S: return ValueRange::between(-0x80, 0x7F);
    case Opcode::I32Load16S: return ValueRange::between(-0x8000, 0x7FFF);
    default: return std::nullopt;
  }
}

// Trailing zero bits known of an absolute value: it is a multiple of 2^this.
uint32_t known_zeros(const Fact& a) {
  uint32_t r = a.residue & low_mask(a.known_bits);
  return r == 0 ? a.known_bits : uint32_t(std::countr_zero(r));
}

bool has_base(const Fact& a) { return a.base == Base::Param || a.base == Base::Stack; }

// A value taken as a number: what is known of it as an absolute value.
// (A pointer shifted or multiplied is no pointer any more; a loaded value
// shifted is an index.)
Fact as_number(const Fact& a) { return a.base == Base::Absolute ? a : make(Base::Absolute, 0, 0, 0); }

// `prefer`: parameters that accesses used as their base (a better guess when
// two parameters are added).
Fact add(const Fact& a, const Fact& b, const std::vector<bool>& prefer) {
  uint32_t bits = std::min(a.known_bits, b.known_bits);
  uint64_t residue = uint64_t(a.residue) + b.residue;
  if (a.base == Base::Absolute && b.base == Base::Absolute) return make(Base::Absolute, 0, bits, residue);
  // A pointer plus an index (known or loaded): the pointer's base.
  if (has_base(a) && !has_base(b)) return make(a.base, a.param, bits, residue);
  if (has_base(b) && !has_base(a)) return make(b.base, b.param, bits, residue);
  if (a.base == Base::Param && b.base == Base::Param) {
    // Two parameters, one of them an index nothing told apart (`p + i + k`):
    // guess the one accesses use as a base, else the left one (clang puts
    // the pointer first). The other's value is unknown, so nothing is known
    // of the low bits.
    auto preferred = [&](const Fact& f) { return f.param < prefer.size() && prefer[f.param]; };
    const Fact& guess = preferred(b) && !preferred(a) ? b : a;
    return make(Base::Param, guess.param, 0, 0);
  }
  return unknown();  // two stack pointers, or nothing known of either
}

Fact sub(const Fact& a, const Fact& b) {
  uint32_t bits = std::min(a.known_bits, b.known_bits);
  uint64_t residue = uint64_t(a.residue) - b.residue;
  if (a.base == Base::Absolute && b.base == Base::Absolute) return make(Base::Absolute, 0, bits, residue);
  if (has_base(a) && !has_base(b)) return make(a.base, a.param, bits, residue);
  // The same parameter's entry value cancels exactly; two stack pointer
  // values need not be the same one.
  if (a.base == Base::Param && same_base(a, b)) return make(Base::Absolute, 0, bits, residue);
  return unknown();
}

Fact mul(const Fact& x, const Fact& y) {
  const Fact a = as_number(x), b = as_number(y);
  // The low k bits of a product depend only on the low k bits of each factor;
  // and a product of multiples of 2^p and 2^q is a multiple of 2^(p+q).
  uint32_t exact = std::min(a.known_bits, b.known_bits);
  uint32_t zeros = known_zeros(a) + known_zeros(b);
  if (zeros >= exact) return make(Base::Absolute, 0, zeros, 0);
  return make(Base::Absolute, 0, exact, uint64_t(a.residue) * b.residue);
}

// The shift amount, when known: wasm masks it to the operand width.
std::optional<uint32_t> shift_amount(const Fact& count, uint32_t width) {
  uint32_t needed = width == 64 ? 6 : 5;
  if (count.base != Base::Absolute || count.known_bits < needed) return std::nullopt;
  return count.residue & (width - 1);
}

Fact shl(const Fact& x, const Fact& count, uint32_t width) {
  const Fact a = as_number(x);
  std::optional<uint32_t> c = shift_amount(count, width);
  if (!c) return make(Base::Absolute, 0, 0, 0);
  if (*c >= 32) return make(Base::Absolute, 0, 32, 0);
  return make(Base::Absolute, 0, a.known_bits + *c, uint64_t(a.residue) << *c);
}

Fact shr(const Fact& x, const Fact& count, uint32_t width) {
  const Fact a = as_number(x);
  std::optional<uint32_t> c = shift_amount(count, width);
  if (!c || a.known_bits <= *c) return make(Base::Absolute, 0, 0, 0);
  // Bit i of the result is bit i + c of a (width >= 32 > known_bits).
  return make(Base::Absolute, 0, a.known_bits - *c, a.residue >> *c);
}

// Bitwise operations on absolute values: bit i is known when both inputs'
// are, or when one input's alone decides it; `known_bits` is the prefix of
// known bits.
Fact bitwise(Opcode op, const Fact& x, const Fact& y) {
  const Fact a = as_number(x), b = as_number(y);
  uint32_t ka = low_mask(a.known_bits), kb = low_mask(b.known_bits);
  uint32_t known = ka & kb, value = 0;
  switch (op) {
    case Opcode::I32And:
    case Opcode::I64And:
      known |= (ka & ~a.residue) | (kb & ~b.residue);  // a known zero decides
      value = a.residue & b.residue;
      break;
    case Opcode::I32Or:
    case Opcode::I64Or:
      known |= (ka & a.residue) | (kb & b.residue);  // a known one decides
      value = a.residue | b.residue;
      break;
    default:  // xor
      value = a.residue ^ b.residue;
      break;
  }
  uint32_t bits = known == ~0u ? 32 : uint32_t(std::countr_one(known));
  return make(Base::Absolute, 0, bits, value);
}

// Whether an instruction uses its operands as numbers rather than as
// addresses: products, quotients, shifts, bit operations, order comparisons
// and widening conversions of i32.
bool uses_operands_as_numbers(Opcode op) {
  switch (op) {
    case Opcode::I32LtS:
    case Opcode::I32LtU:
    case Opcode::I32GtS:
    case Opcode::I32GtU:
    case Opcode::I32LeS:
    case Opcode::I32LeU:
    case Opcode::I32GeS:
    case Opcode::I32GeU:
    case Opcode::I64LtS:
    case Opcode::I64LtU:
    case Opcode::I64GtS:
    case Opcode::I64GtU:
    case Opcode::I64LeS:
    case Opcode::I64LeU:
    case Opcode::I64GeS:
    case Opcode::I64GeU:
    case Opcode::F32Lt:
    case Opcode::F32Gt:
    case Opcode::F32Le:
    case Opcode::F32Ge:
    case Opcode::F64Lt:
    case Opcode::F64Gt:
    case Opcode::F64Le:
    case Opcode::F64Ge:
    case Opcode::I32Mul:
    case Opcode::I32DivS:
    case Opcode::I32DivU:
    case Opcode::I32RemS:
    case Opcode::I32RemU:
    case Opcode::I32And:
    case Opcode::I32Or:
    case Opcode::I32Xor:
    case Opcode::I32Shl:
    case Opcode::I32ShrS:
    case Opcode::I32ShrU:
    case Opcode::I32Rotl:
    case Opcode::I32Rotr:
    case Opcode::I64Mul:
    case Opcode::I64DivS:
    case Opcode::I64DivU:
    case Opcode::I64RemS:
    case Opcode::I64RemU:
    case Opcode::I64And:
    case Opcode::I64Or:
    case Opcode::I64Xor:
    case Opcode::I64Shl:
    case Opcode::I64ShrS:
    case Opcode::I64ShrU:
    case Opcode::I64Rotl:
    case Opcode::I64Rotr:
    case Opcode::F32Mul:
    case Opcode::F32Div:
    case Opcode::F64Mul:
    case Opcode::F64Div:
    case Opcode::I64ExtendI32S:
    case Opcode::I64ExtendI32U:
    case Opcode::F32ConvertI32S:
    case Opcode::F32ConvertI32U:
    case Opcode::F64ConvertI32S:
    case Opcode::F64ConvertI32U: return true;
    default: return false;
  }
}

// What the interpreter reads off an opcode's facts.
struct OpcodeShape {
  bool numeric = false;        // uses_operands_as_numbers
  uint8_t operands = 0;        // values it pops (0 for instructions typed by hand)
  uint8_t results = 0;         // values it pushes
  bool memory_access = false;  // a MemArg instruction with an address operand (the first one)
};

// OpcodeShape by opcode, worked out once: the interpreter needs it for every
// instruction it steps through.
const OpcodeShape& shape(Opcode op) {
  static const std::array<OpcodeShape, wasm::kOpcodeCount> shapes = [] {
    std::array<OpcodeShape, wasm::kOpcodeCount> table{};
    for (size_t i = 0; i < wasm::kOpcodeCount; ++i) {
      const wasm::OpcodeInfo& info = wasm::info(Opcode(i));
      OpcodeShape& shape = table[i];
      shape.numeric = uses_operands_as_numbers(Opcode(i));
      shape.operands = uint8_t(info.params.size());
      shape.results = uint8_t(info.results.size());
      shape.memory_access = info.immediate == wasm::ImmediateKind::MemArg && shape.operands >= 1;
    }
    return table;
  }();
  return shapes[size_t(op)];
}

// What the interpreter knows at a point of the code: the locals' facts.
// Stack values have theirs by id (wasm/operand_flow.h); a label keeps the
// facts of the values that branches carry to it.
struct State {
  bool reachable = false;
  std::vector<Fact> locals;
  std::vector<Fact> carried;  // a label's: joined over the branches to it
};

// Joins `locals` and the facts `values` into `into` (a label's state).
void join_into(State& into, const std::vector<Fact>& locals, const std::vector<Fact>& values) {
  if (!into.reachable) {
    into.reachable = true;
    into.locals = locals;
    into.carried = values;
    return;
  }
  for (size_t i = 0; i < locals.size(); ++i) into.locals[i] = join(into.locals[i], locals[i]);
  for (size_t i = 0; i < values.size() && i < into.carried.size(); ++i)
    into.carried[i] = join(into.carried[i], values[i]);
}

struct Frame {
  Opcode kind = Opcode::Block;  // Block, Loop, If, or Nop for the function
  size_t start = 0, else_index = 0, end_index = 0;
  bool seen_else = false;
  State label;       // joined states of branches to the label (and, at end, fallthrough)
  State else_entry;  // If: the state the else arm starts from
  State header;      // Loop: the state at the loop header (carried: its parameters' facts)
  int rounds = 0;
  // Loop: the ranges counted-loop variables take at the header
  // (loop_induction.h), by local; they replace what the back-edges bring.
  std::vector<std::pair<uint32_t, ValueRange>> header_ranges;
};

class Interpreter {
 public:
  Interpreter(const wasm::Module& module, uint32_t function_index, const wasm::OperandFlow& flow,
              const ProvenanceOptions& options, std::vector<bool> pointer_params, std::vector<bool> prefer = {})
      : pointer_params_(std::move(pointer_params)),
        prefer_(std::move(prefer)),
        module_(module),
        function_(module.functions.at(function_index - module.imported_functions)),
        type_(module.function_type(function_index)),
        flow_(flow),
        options_(options) {}

  // Parameters whose entry value some instruction used as a number
  // (multiplied, shifted, compared for order, converted...), by index.
  const std::vector<bool>& numeric() const { return numeric_; }

  std::vector<Fact> run() {
    const std::vector<wasm::Instr>& body = function_.body;
    numeric_.assign(type_.params.size(), false);
    facts_.assign(body.size(), unknown());
    recorded_.assign(body.size(), false);
    values_.assign(flow_.value_count(), unknown());
    state_.reachable = true;
    state_.locals.reserve(type_.params.size() + function_.locals.size());
    for (size_t i = 0; i < type_.params.size(); ++i)
      state_.locals.push_back(pointer_params_.at(i) ? make(Base::Param, uint32_t(i), 32, 0) : absolute_unknown());
    for (size_t i = 0; i < function_.locals.size(); ++i)
      state_.locals.push_back(options_.ranges ? absolute(0) : with_range(absolute(0), ValueRange::full()));
    Frame function_frame;
    function_frame.kind = Opcode::Nop;
    function_frame.end_index = function_frame.else_index = body.size() - 1;
    frames_.push_back(std::move(function_frame));
    for (size_t ip = 0; ip < body.size() && !frames_.empty(); ++ip) {
      if (!state_.reachable) {
        // Dead code: skip to the else of an if's then arm, or the frame's end.
        const Frame& top = frames_.back();
        bool in_then = top.kind == Opcode::If && !top.seen_else && top.else_index != top.end_index;
        ip = in_then ? top.else_index : top.end_index;
      }
      ip_ = ip;
      ip = step(body[ip], ip);
    }
    return std::move(facts_);
  }

 private:
  // The current instruction's operands (the deepest is 0) and results, as
  // the operand flow names them.
  std::span<const wasm::ValueId> operand_ids() const { return flow_.operands(ip_); }
  const Fact& operand(size_t k) const { return values_[operand_ids()[k]]; }
  std::vector<Fact> facts_of(std::span<const wasm::ValueId> ids) const {
    std::vector<Fact> facts;
    facts.reserve(ids.size());
    for (wasm::ValueId id : ids) facts.push_back(values_[id]);
    return facts;
  }
  void set(wasm::ValueId id, const Fact& f) {
    values_[id] = f;
    if (!options_.ranges) values_[id].range = ValueRange::full();
  }
  void set_result(size_t k, const Fact& f) { set(flow_.results(ip_)[k], f); }
  void set_results_unknown() {
    for (wasm::ValueId id : flow_.results(ip_)) set(id, unknown());
  }

  void record(size_t ip, const Fact& fact) {
    facts_[ip] = recorded_[ip] ? join(facts_[ip], fact) : fact;
    recorded_[ip] = true;
  }

  // A branch to `depth` carrying the current instruction's first `count` operands.
  void branch(uint32_t depth, size_t count) {
    Frame& target = frames_.at(frames_.size() - 1 - depth);
    if (target.kind == Opcode::Nop) return;  // a return: nothing joins there
    join_into(target.label, state_.locals, facts_of(operand_ids().first(count)));
  }

  // Returns the index of the instruction processed last (a loop's end may
  // send the walk back to its start).
  size_t step(const wasm::Instr& instr, size_t ip) {
    const OpcodeShape& op = shape(instr.op);
    if (op.numeric) {
      for (wasm::ValueId id : operand_ids()) {
        const Fact& operand = values_[id];
        if (operand.base == Base::Param && operand.param < numeric_.size()) numeric_[operand.param] = true;
      }
    }
    switch (instr.op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If: {
        Frame& frame = frames_.emplace_back();
        frame.kind = instr.op;
        frame.start = ip;
        frame.else_index = instr.op == Opcode::If ? instr.imm0 : instr.imm1;
        frame.end_index = instr.imm1;
        if (instr.op == Opcode::If) frame.else_entry = state_;
        if (instr.op == Opcode::Loop) {
          frame.header_ranges = counted_ranges(ip);
          for (const auto& [local, range] : frame.header_ranges)
            state_.locals[local] = with_range(state_.locals[local], range);
          frame.header = state_;
          // The parameters at the header: what entered, joined with what
          // the back-edges bring at the loop's end.
          frame.header.carried = facts_of(operand_ids());
          for (size_t k = 0; k < frame.header.carried.size(); ++k) set_result(k, frame.header.carried[k]);
        }
        return ip;
      }
      case Opcode::Else: {
        Frame& frame = frames_.back();
        if (state_.reachable) join_into(frame.label, state_.locals, facts_of(operand_ids()));
        frame.seen_else = true;
        state_ = frame.else_entry;
        return ip;
      }
      case Opcode::End: return end(ip);
      case Opcode::Br:
        branch(instr.imm0, operand_ids().size());
        state_.reachable = false;
        return ip;
      case Opcode::BrIf: branch(instr.imm0, operand_ids().size() - 1); return ip;
      case Opcode::BrTable:
        for (uint32_t depth : function_.br_tables.at(instr.imm0)) branch(depth, operand_ids().size() - 1);
        state_.reachable = false;
        return ip;
      case Opcode::Return:
      case Opcode::Unreachable: state_.reachable = false; return ip;
      case Opcode::Nop:
      case Opcode::Drop: return ip;
      case Opcode::Select:
      case Opcode::SelectTyped: set_result(0, join(operand(0), operand(1))); return ip;
      case Opcode::LocalGet: set_result(0, state_.locals.at(instr.imm0)); return ip;
      case Opcode::LocalSet: state_.locals.at(instr.imm0) = operand(0); return ip;
      case Opcode::LocalTee:
        state_.locals.at(instr.imm0) = operand(0);
        set_result(0, operand(0));
        return ip;
      case Opcode::GlobalGet:
        if (options_.stack_pointer && instr.imm0 == *options_.stack_pointer)
          set_result(0, make(Base::Stack, 0, options_.stack_pointer_aligned ? 4 : 0, 0));
        else
          set_result(0, unknown());
        return ip;
      case Opcode::GlobalSet: record(ip, operand(0)); return ip;
      case Opcode::ReturnCall: {  // as a call, and nothing after it is reached
        const Intrinsic* intrinsic = find_intrinsic(module_, instr.imm0);
        if (intrinsic && is_atomic(intrinsic->kind)) record(ip, operand(0));
        state_.reachable = false;
        return ip;
      }
      case Opcode::ReturnCallIndirect: state_.reachable = false; return ip;
      case Opcode::Call: {
        // An atomic intrinsic's address operand, recorded like a memory access's.
        const Intrinsic* intrinsic = find_intrinsic(module_, instr.imm0);
        if (intrinsic && is_atomic(intrinsic->kind)) record(ip, operand(0));
        if (std::optional<ValueRange> range = intrinsic_range(instr.imm0))
          set_result(0, number_in(*range));
        else
          set_results_unknown();
        return ip;
      }
      case Opcode::I32Const:
      case Opcode::I64Const: set_result(0, absolute(instr.imm64)); return ip;
      // Ranges speak of the low 32 bits, which i64 add, sub, mul, shl and
      // the bitwise operations compute as i32 ones would.
      case Opcode::I32Add:
      case Opcode::I64Add: {
        const Fact a = operand(0), b = operand(1);
        set_result(0, with_range(add(a, b, prefer_), range_of(a).add(range_of(b))));
        return ip;
      }
      case Opcode::I32Sub:
      case Opcode::I64Sub: {
        const Fact a = operand(0), b = operand(1);
        set_result(0, with_range(sub(a, b), range_of(a).sub(range_of(b))));
        return ip;
      }
      case Opcode::I32Mul:
      case Opcode::I64Mul: {
        const Fact a = operand(0), b = operand(1);
        set_result(0, with_range(mul(a, b), range_of(a).mul(range_of(b))));
        return ip;
      }
      case Opcode::I32Shl:
      case Opcode::I64Shl: {
        const Fact a = operand(0), b = operand(1);
        const bool wide = instr.op == Opcode::I64Shl;
        ValueRange range = range_of(a).shl(range_of(b));
        if (wide) {
          std::optional<uint32_t> count = range_of(b).as_constant();
          range = !count ? ValueRange::full() : (*count & 63) >= 32 ? ValueRange::constant(0) : range;
        }
        set_result(0, with_range(shl(a, b, wide ? 64 : 32), range));
        return ip;
      }
      case Opcode::I32ShrU:
      case Opcode::I64ShrU:
      case Opcode::I32ShrS:
      case Opcode::I64ShrS: {
        const Fact a = operand(0), b = operand(1);
        Fact result = shr(a, b, instr.op == Opcode::I64ShrU || instr.op == Opcode::I64ShrS ? 64 : 32);
        if (instr.op == Opcode::I32ShrU) result = with_range(result, range_of(a).shr_u(range_of(b)));
        if (instr.op == Opcode::I32ShrS) result = with_range(result, range_of(a).shr_s(range_of(b)));
        set_result(0, result);
        return ip;
      }
      case Opcode::I32DivU:
      case Opcode::I32RemU: {
        const Fact a = operand(0), b = operand(1);
        set_result(0, number_in(instr.op == Opcode::I32DivU ? range_of(a).div_u(range_of(b))
                                                            : range_of(a).rem_u(range_of(b))));
        return ip;
      }
      case Opcode::I32And:
      case Opcode::I64And:
      case Opcode::I32Or:
      case Opcode::I64Or:
      case Opcode::I32Xor:
      case Opcode::I64Xor: {
        const Fact a = operand(0), b = operand(1);
        const ValueRange x = range_of(a), y = range_of(b);
        ValueRange range = instr.op == Opcode::I32And || instr.op == Opcode::I64And ? x.bit_and(y)
                           : instr.op == Opcode::I32Or || instr.op == Opcode::I64Or ? x.bit_or(y)
                                                                                    : x.bit_xor(y);
        // An or (or xor) of a multiple of 2^k and a number below 2^k is
        // their sum: clang's way of adding a row's base and a column.
        if (instr.op != Opcode::I32And && instr.op != Opcode::I64And && !x.is_full() && !y.is_full()) {
          auto disjoint = [](const Fact& multiple, const ValueRange& small) {
            const uint32_t zeros = known_zeros(as_number(multiple));
            return zeros >= 32 || small.unsigned_bounds().second < (uint64_t(1) << zeros);
          };
          if (disjoint(a, y) || disjoint(b, x)) range = x.add(y);
        }
        set_result(0, with_range(bitwise(instr.op, a, b), range));
        return ip;
      }
      // The low 32 bits pass unchanged, which is all a fact speaks of.
      case Opcode::I32WrapI64:
      case Opcode::I64ExtendI32U:
      case Opcode::I64ExtendI32S: set_result(0, operand(0)); return ip;
      default: break;
    }
    // Everything else, by its facts: memory accesses record their address
    // operand (the first one); comparisons give 0 or 1, narrow loads what
    // their bytes hold, and the rest values nothing is known of.
    if (op.memory_access) record(ip, operand(0));
    if (is_comparison(instr.op)) {
      set_result(0, number_in(ValueRange::between(0, 1)));
    } else if (std::optional<ValueRange> loaded = loaded_range(instr.op)) {
      set_result(0, number_in(*loaded));
    } else {
      set_results_unknown();
    }
    return ip;
  }

  size_t end(size_t ip) {
    Frame& frame = frames_.back();
    if (frame.kind == Opcode::Loop && frame.label.reachable) {
      // Back-edges reached the header: join them into the header's state
      // (in place: nothing changes where the join adds nothing) and run the
      // body again from there until nothing changes.
      State& header = frame.header;
      bool changed = false;
      for (const auto& [local, range] : frame.header_ranges)
        frame.label.locals[local] = with_range(frame.label.locals[local], range);
      for (size_t i = 0; i < header.locals.size(); ++i) {
        Fact j = join(header.locals[i], frame.label.locals[i]);
        // Ranges still growing after the first round go to every value at
        // once: a loop that is not counted may run any number of times.
        if (frame.rounds >= 1 && !(j.range == header.locals[i].range)) j.range = ValueRange::full();
        if (!(j == header.locals[i])) {
          header.locals[i] = frame.rounds >= kWideningRounds ? unknown() : j;
          changed = true;
        }
      }
      for (size_t i = 0; i < frame.label.carried.size() && i < header.carried.size(); ++i) {
        Fact j = join(header.carried[i], frame.label.carried[i]);
        if (!(j == header.carried[i])) {
          header.carried[i] = frame.rounds >= kWideningRounds ? unknown() : j;
          changed = true;
        }
      }
      if (changed) {
        frame.label = State{};
        ++frame.rounds;
        state_ = header;
        state_.carried.clear();
        std::span<const wasm::ValueId> params = flow_.results(frame.start);
        for (size_t i = 0; i < params.size(); ++i) set(params[i], header.carried[i]);
        return frame.start;  // the loop's body runs again
      }
    }
    if (frame.kind == Opcode::Loop) {
      // Fixed point: the loop's end is reached by falling through only.
      frames_.pop_back();
      pass_through(ip);
      return ip;
    }
    // Block, if, function: fallthrough and branches meet here.
    State merged = std::move(frame.label);
    if (state_.reachable) join_into(merged, state_.locals, facts_of(operand_ids()));
    if (frame.kind == Opcode::If && !frame.seen_else && frame.else_entry.reachable) {
      // No else arm: the if's parameters pass through as its results.
      join_into(merged, frame.else_entry.locals, facts_of(flow_.results(frame.start)));
    }
    frames_.pop_back();
    if (!merged.reachable) {
      state_.reachable = false;
      return ip;
    }
    state_.reachable = true;
    state_.locals = std::move(merged.locals);
    std::span<const wasm::ValueId> results = flow_.results(ip);
    for (size_t i = 0; i < results.size() && i < merged.carried.size(); ++i) set(results[i], merged.carried[i]);
    return ip;
  }

  // A loop's results: the values that fall through its end.
  void pass_through(size_t ip) {
    std::span<const wasm::ValueId> from = flow_.operands(ip), to = flow_.results(ip);
    for (size_t i = 0; i < from.size() && i < to.size(); ++i) values_[to[i]] = values_[from[i]];
  }

  static Fact absolute_unknown() { return make(Base::Absolute, 0, 0, 0); }

  // What a call to an intrinsic returns, under the workgroup-size assumption.
  std::optional<ValueRange> intrinsic_range(uint32_t function) const {
    const uint32_t limit = options_.max_workgroup_invocations;
    const Intrinsic* intrinsic = find_intrinsic(module_, function);
    if (limit == 0 || !intrinsic) return std::nullopt;
    if (intrinsic->kind == IntrinsicKind::LocalIndex || intrinsic->kind == IntrinsicKind::LocalId)
      return ValueRange::between(0, limit - 1);
    if (intrinsic->kind == IntrinsicKind::WorkgroupSize) return ValueRange::between(1, limit);
    return std::nullopt;
  }

  // The header ranges of the counted loop at body[loop_ip], from the state
  // on entry (state_): the control variable must enter with one known value.
  std::vector<std::pair<uint32_t, ValueRange>> counted_ranges(size_t loop_ip) const {
    if (!options_.ranges) return {};
    auto found = inductions_.find(loop_ip);
    if (found == inductions_.end())
      found = inductions_.emplace(loop_ip, find_loop_induction(function_.body, loop_ip)).first;
    const std::optional<LoopInduction>& induction = found->second;
    if (!induction) return {};
    const LoopInduction::Variable& control = induction->variables[induction->control];
    std::optional<uint32_t> entry = range_of(state_.locals.at(control.local)).as_constant();
    if (!entry) return {};
    std::optional<uint64_t> visits = header_visits(*induction, *entry);
    if (!visits) return {};
    std::vector<std::pair<uint32_t, ValueRange>> ranges;
    for (const LoopInduction::Variable& v : induction->variables) {
      // Entry + k * step for k < visits: the entry range widened by the
      // distance covered, when it stays below 2^32.
      const __int128 travel = __int128(*visits - 1) * v.step;
      if (travel >= (__int128(1) << 32) || travel <= -(__int128(1) << 32)) continue;
      const ValueRange moved =
          ValueRange::between(std::min<int64_t>(0, int64_t(travel)), std::max<int64_t>(0, int64_t(travel)));
      ranges.push_back({v.local, range_of(state_.locals.at(v.local)).add(moved)});
    }
    return ranges;
  }

  std::vector<bool> pointer_params_;
  std::vector<bool> prefer_;
  const wasm::Module& module_;
  const wasm::Function& function_;
  const wasm::FuncType& type_;
  const wasm::OperandFlow& flow_;
  ProvenanceOptions options_;
  State state_;
  std::vector<Fact> values_;  // by stack value (wasm/operand_flow.h)
  size_t ip_ = 0;             // the instruction step() is at
  std::vector<Frame> frames_;
  std::vector<Fact> facts_;
  std::vector<bool> recorded_;
  std::vector<bool> numeric_;
  // find_loop_induction by loop instruction (an inner loop is entered again
  // on every round of the outer one).
  mutable std::unordered_map<size_t, std::optional<LoopInduction>> inductions_;
};

}  // namespace

uint32_t PointerFact::alignment(uint64_t offset, uint32_t limit) const {
  if (base == Base::Unknown) return 1;
  uint32_t value = uint32_t(residue + offset) & low_mask(known_bits);
  uint32_t zeros = value == 0 ? known_bits : std::min<uint32_t>(known_bits, std::countr_zero(value));
  if (zeros >= 31) return limit;
  return std::min(limit, uint32_t(1) << zeros);
}

std::vector<PointerFact> analyse_pointer_provenance(const wasm::Module& module, uint32_t function_index,
                                                    const ProvenanceOptions& options) {
  const wasm::Function& function = module.functions.at(function_index - module.imported_functions);
  return analyse_pointer_provenance(module, function_index, wasm::OperandFlow::build(module, function), options);
}

std::vector<PointerFact> analyse_pointer_provenance(const wasm::Module& module, uint32_t function_index,
                                                    const wasm::OperandFlow& flow, const ProvenanceOptions& options) {
  // Twice: first with every i32 parameter a possible pointer (except those
  // the caller knows are numbers); then a parameter that no access used as
  // its base but that some instruction used as a number (an index or a
  // count) is taken as a number, so that `pointer + count` keeps the
  // pointer's base. Which base an access gets is a guess the fast path
  // checks at run time; the alignment facts hold either way.
  const wasm::FuncType& type = module.function_type(function_index);
  std::vector<bool> candidates(type.params.size());
  for (size_t i = 0; i < type.params.size(); ++i)
    candidates[i] =
        type.params[i] == wasm::ValType::I32 && !(i < options.number_params.size() && options.number_params[i]);
  Interpreter first_round(module, function_index, flow, options, candidates);
  std::vector<PointerFact> first = first_round.run();
  std::vector<bool> used(type.params.size(), false);
  const std::vector<wasm::Instr>& body = module.functions.at(function_index - module.imported_functions).body;
  for (size_t i = 0; i < body.size(); ++i)
    if (first[i].base == PointerFact::Base::Param && body[i].op != wasm::Opcode::GlobalSet)
      used.at(first[i].param) = true;
  std::vector<bool> pointers = candidates;
  for (size_t i = 0; i < pointers.size(); ++i) pointers[i] = candidates[i] && (used[i] || !first_round.numeric()[i]);
  return Interpreter(module, function_index, flow, options, pointers, used).run();
}

bool stack_pointer_stays_aligned(const wasm::Module& module, const std::vector<uint32_t>& functions,
                                 uint32_t stack_pointer, uint32_t initial_value) {
  if (initial_value % 16 != 0) return false;
  ProvenanceOptions options{.stack_pointer = stack_pointer, .stack_pointer_aligned = true, .number_params = {}};
  for (uint32_t function : functions) {
    if (module.imported_function(function)) continue;
    const std::vector<wasm::Instr>& body = module.functions.at(function - module.imported_functions).body;
    bool sets = false;
    for (const wasm::Instr& instr : body) sets |= instr.op == wasm::Opcode::GlobalSet && instr.imm0 == stack_pointer;
    if (!sets) continue;
    std::vector<PointerFact> facts = analyse_pointer_provenance(module, function, options);
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i].op != wasm::Opcode::GlobalSet || body[i].imm0 != stack_pointer) continue;
      const PointerFact& value = facts[i];
      // A stack pointer value moved by a multiple of 16, or a constant one.
      bool aligned = (value.base == PointerFact::Base::Stack || value.base == PointerFact::Base::Absolute) &&
                     value.alignment(0) >= 16;
      if (!aligned) return false;
    }
  }
  return true;
}

}  // namespace wasmgpu::frontend
