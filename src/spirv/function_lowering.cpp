// Instruction selection: one case per wasm opcode (the switch has no default,
// so -Wswitch reports an opcode added to opcodes.def and not handled here).
//
// Integers are unsigned SPIR-V types; signed operations use the S-opcodes,
// which read the bits as two's complement. Float results of + - * / carry
// NoContraction. Float neg/abs/copysign work on the bit pattern (wasm defines
// them on bits, NaN payloads included); min/max follow wasm (NaN if either
// operand is NaN, -0 < +0) through compares and selects.
#include "spirv/function_lowering.h"

#include <bit>
#include <cmath>
#include <cassert>
#include <cstring>

#include <spirv/unified1/GLSL.std.450.h>

#include "spirv/float_exact.h"
#include "spirv/float_rounding.h"
#include "spirv/intrinsics.h"

namespace wasmgpu::spirv {

using wasm::Opcode;
using wasm::ValType;
using Op = spv::Op;

namespace {

std::vector<Id> param_types(KernelContext& k, const wasm::FuncType& type) {
  std::vector<Id> types;
  for (ValType t : type.params) types.push_back(k.types.value_type(t));
  return types;
}

// The builder of a function of the module: its parameter types are made
// before its result type.
std::optional<FunctionBuilder> own_function(KernelContext& k, uint32_t function_index, const wasm::FuncType& type) {
  std::vector<Id> params = param_types(k, type);
  Id result = k.types.result_type(type.results);
  return std::optional<FunctionBuilder>(std::in_place, k.b, k.function_ids.at(function_index), result, params);
}

uint32_t f32_bits(float value) { return std::bit_cast<uint32_t>(value); }
uint64_t f64_bits(double value) { return std::bit_cast<uint64_t>(value); }

}  // namespace

FunctionLowering::FunctionLowering(KernelContext& k, uint32_t function_index)
    : k_(k),
      b_(k.b),
      index_((k.current_function = function_index)),  // names f64 users, params included
      function_(k.module.functions.at(function_index - k.module.imported_functions)),
      type_(k.module.function_type(function_index)),
      own_function_(own_function(k, function_index, type_)),
      f_(*own_function_) {}

FunctionLowering::FunctionLowering(KernelContext& k, uint32_t function_index, FunctionBuilder& shared)
    : k_(k),
      b_(k.b),
      index_((k.current_function = function_index)),
      function_(k.module.functions.at(function_index - k.module.imported_functions)),
      type_(k.module.function_type(function_index)),
      f_(shared) {}

Status FunctionLowering::lower(const FunctionFacts& facts) {
  k_.current_function = index_;
  b_.name(f_.id(), k_.module.function_name(index_));
  local_types_ = type_.params;
  local_types_.insert(local_types_.end(), function_.locals.begin(), function_.locals.end());
  for (size_t i = 0; i < local_types_.size(); ++i) {
    const Id type = type_of(local_types_[i]);
    Id var = f_.variable(type);
    bool is_reference = local_types_[i] == ValType::FuncRef || local_types_[i] == ValType::ExternRef;
    Id zero = is_reference ? b_.const_u32(abi::kNullRef) : b_.const_null(type);
    f_.store(var, i < type_.params.size() ? f_.param(i) : zero);
    locals_.push_back(var);
  }
  pending_var_ = f_.variable(k_.types.u32);
  b_.name(pending_var_, "pending");
  f_.store(pending_var_, b_.const_u32(0));
  WASMGPU_TRY(find_branch_targets());
  facts_ = &facts;
  if (index_ == k_.abi.kernel_function && facts.launch_proof) k_.proofs.launch_proof = *facts.launch_proof;

  const std::vector<wasm::Instr>& body = function_.body;
  Frame function_frame;
  function_frame.kind = Frame::Kind::Function;
  function_frame.end_index = function_frame.else_index = body.size() - 1;
  function_frame.results = type_.results;
  frames_.push_back(function_frame);
  for (size_t ip = 0; ip < body.size() && !frames_.empty(); ++ip) {
    if (!f_.open()) {
      // Dead code: skip to the else (of an if's then arm) or end of the frame.
      const Frame& top = frames_.back();
      bool in_then = top.kind == Frame::Kind::If && !top.seen_else && top.else_index != top.end_index;
      ip = in_then ? top.else_index : top.end_index;
    }
    WASMGPU_TRY(lower_instruction(body[ip], ip));
  }
  if (!frames_.empty() || f_.open())
    return make_error(ErrorCode::Internal, "function " + k_.module.function_name(index_) + ": body is not well nested");
  f_.finish();
  return {};
}

Status FunctionLowering::prepare_member() {
  WASMGPU_TRY(find_branch_targets());
  local_types_ = type_.params;
  local_types_.insert(local_types_.end(), function_.locals.begin(), function_.locals.end());
  for (ValType type : local_types_) locals_.push_back(f_.variable(type_of(type)));
  return {};
}

void FunctionLowering::settle_float_run(wasm::Opcode next) {
  if (k_.exact_float && !ExactFloat::continues_run(next)) k_.exact_float->settle(f_, stack_);
}

Id FunctionLowering::pop() {
  assert(!stack_.empty() && "operand stack underflow (module not validated?)");
  Id value = stack_.back();
  stack_.pop_back();
  return value;
}

Id FunctionLowering::op(Op op, Id type, std::initializer_list<Operand> operands) { return f_.op(op, type, operands); }

Id FunctionLowering::float_op(Op op, Id type, Id a, Id b) {
  Id result = f_.op(op, type, {a, b});
  // Exact mode rounds every operation as wasm does; fast mode lets the
  // device fuse a*b + c into one multiply-add, as plain GLSL and nvcc -O3
  // do (docs/float-modes.md).
  if (k_.exact_float) b_.decorate(result, spv::Decoration::NoContraction);
  return result;
}

Id FunctionLowering::bool_to_i32(Id condition) {
  return op(Op::OpSelect, k_.types.u32, {condition, b_.const_u32(1), b_.const_u32(0)});
}

Id FunctionLowering::nonzero(Id value, Id type) {
  return op(Op::OpINotEqual, k_.types.bool_type, {value, type == k_.types.u64 ? b_.const_u64(0) : b_.const_u32(0)});
}

void FunctionLowering::binary(Op opcode, Id type) {
  Id rhs = pop(), lhs = pop();
  push(op(opcode, type, {lhs, rhs}));
}

void FunctionLowering::compare(Op opcode) {
  Id rhs = pop(), lhs = pop();
  push(bool_to_i32(op(opcode, k_.types.bool_type, {lhs, rhs})));
}

void FunctionLowering::count_bits(Opcode opcode) {
  Id x = pop();
  Id u32 = k_.types.u32;
  auto clz32 = [&](Id v) {  // FindUMsb(0) is -1, so 31 - msb gives 32
    return op(Op::OpISub, u32, {b_.const_u32(31), f_.glsl(GLSLstd450FindUMsb, u32, {v})});
  };
  auto ctz32 = [&](Id v) {
    Id lsb = f_.glsl(GLSLstd450FindILsb, u32, {v});
    return op(Op::OpSelect, u32, {op(Op::OpIEqual, k_.types.bool_type, {v, b_.const_u32(0)}), b_.const_u32(32), lsb});
  };
  auto popcnt32 = [&](Id v) { return op(Op::OpBitCount, u32, {v}); };
  switch (opcode) {
    case Opcode::I32Clz: push(clz32(x)); return;
    case Opcode::I32Ctz: push(ctz32(x)); return;
    case Opcode::I32Popcnt: push(popcnt32(x)); return;
    default: break;
  }
  // 64-bit: the bit instructions are 32-bit only in Vulkan, so split.
  Id low = op(Op::OpUConvert, u32, {x});
  Id high = op(Op::OpUConvert, u32, {op(Op::OpShiftRightLogical, k_.types.u64, {x, b_.const_u32(32)})});
  Id result;
  auto plus32 = [&](Id v) { return op(Op::OpIAdd, u32, {v, b_.const_u32(32)}); };
  if (opcode == Opcode::I64Clz) {
    Id high_zero = op(Op::OpIEqual, k_.types.bool_type, {high, b_.const_u32(0)});
    result = op(Op::OpSelect, u32, {high_zero, plus32(clz32(low)), clz32(high)});
  } else if (opcode == Opcode::I64Ctz) {
    Id low_zero = op(Op::OpIEqual, k_.types.bool_type, {low, b_.const_u32(0)});
    result = op(Op::OpSelect, u32, {low_zero, plus32(ctz32(high)), ctz32(low)});
  } else {
    result = op(Op::OpIAdd, u32, {popcnt32(low), popcnt32(high)});
  }
  push(op(Op::OpUConvert, k_.types.u64, {result}));
}

void FunctionLowering::shift(Opcode opcode, Id type, uint32_t bits) {
  Id count = pop(), x = pop();
  auto constant = [&](uint32_t v) { return bits == 64 ? b_.const_u64(v) : b_.const_u32(v); };
  count = op(Op::OpBitwiseAnd, type, {count, constant(bits - 1)});
  switch (opcode) {
    case Opcode::I32Shl:
    case Opcode::I64Shl: push(op(Op::OpShiftLeftLogical, type, {x, count})); return;
    case Opcode::I32ShrS:
    case Opcode::I64ShrS: push(op(Op::OpShiftRightArithmetic, type, {x, count})); return;
    case Opcode::I32ShrU:
    case Opcode::I64ShrU: push(op(Op::OpShiftRightLogical, type, {x, count})); return;
    default: break;
  }
  // Rotations: (x << n) | (x >> ((bits - n) & (bits - 1))), which is x for n == 0.
  bool left = opcode == Opcode::I32Rotl || opcode == Opcode::I64Rotl;
  Id other = op(Op::OpBitwiseAnd, type, {op(Op::OpISub, type, {constant(bits), count}), constant(bits - 1)});
  Id a = op(left ? Op::OpShiftLeftLogical : Op::OpShiftRightLogical, type, {x, count});
  Id b = op(left ? Op::OpShiftRightLogical : Op::OpShiftLeftLogical, type, {x, other});
  push(op(Op::OpBitwiseOr, type, {a, b}));
}

void FunctionLowering::divide(Opcode opcode, Id type, uint32_t bits) {
  Id rhs = pop(), lhs = pop();
  auto constant = [&](uint64_t v) { return bits == 64 ? b_.const_u64(v) : b_.const_u32(uint32_t(v)); };
  uint64_t minus_one = bits == 64 ? ~uint64_t(0) : 0xFFFF'FFFFu;
  uint64_t int_min = uint64_t(1) << (bits - 1);
  Id zero_divisor = op(Op::OpIEqual, k_.types.bool_type, {rhs, constant(0)});
  f_.if_else(zero_divisor, [&] { k_.helpers->trap(f_, abi::TrapKind::IntegerDivideByZero); });
  // The trapped invocation goes on (traps.cpp): divide by 1 instead of 0,
  // which some devices (lavapipe on a CPU) would fault on.
  rhs = op(Op::OpSelect, type, {zero_divisor, constant(1), rhs});
  bool is_signed =
      opcode == Opcode::I32DivS || opcode == Opcode::I64DivS || opcode == Opcode::I32RemS || opcode == Opcode::I64RemS;
  bool is_div =
      opcode == Opcode::I32DivS || opcode == Opcode::I64DivS || opcode == Opcode::I32DivU || opcode == Opcode::I64DivU;
  if (!is_signed) {
    push(op(is_div ? Op::OpUDiv : Op::OpUMod, type, {lhs, rhs}));
    return;
  }
  Id divisor_minus_one = op(Op::OpIEqual, k_.types.bool_type, {rhs, constant(minus_one)});
  if (is_div) {
    Id overflow = op(Op::OpLogicalAnd, k_.types.bool_type,
                     {op(Op::OpIEqual, k_.types.bool_type, {lhs, constant(int_min)}), divisor_minus_one});
    f_.if_else(overflow, [&] { k_.helpers->trap(f_, abi::TrapKind::IntegerOverflow); });
    push(op(Op::OpSDiv, type, {lhs, op(Op::OpSelect, type, {overflow, constant(1), rhs})}));
    return;
  }
  // rem_s: x - (x / d) * d with truncating division, which takes the
  // dividend's sign as wasm does. Not OpSRem: NVIDIA's driver (580) computes
  // it wrongly on the unsigned integer types wasm values use here. x % -1 is
  // 0 (INT_MIN % -1 must not trap): dividing by 1 instead gives x - x = 0.
  Id safe_divisor = op(Op::OpSelect, type, {divisor_minus_one, constant(1), rhs});
  Id quotient = op(Op::OpSDiv, type, {lhs, safe_divisor});
  push(op(Op::OpISub, type, {lhs, op(Op::OpIMul, type, {quotient, safe_divisor})}));
}

void FunctionLowering::float_unary(Opcode opcode, Id type, uint32_t bits) {
  Id x = pop();
  Id int_type = bits == 64 ? k_.types.u64 : k_.types.u32;
  uint64_t sign = uint64_t(1) << (bits - 1);
  auto constant = [&](uint64_t v) { return bits == 64 ? b_.const_u64(v) : b_.const_u32(uint32_t(v)); };
  auto on_bits = [&](Op opcode, uint64_t mask) {
    Id raw = op(Op::OpBitcast, int_type, {x});
    return op(Op::OpBitcast, type, {op(opcode, int_type, {raw, constant(mask)})});
  };
  switch (opcode) {
    case Opcode::F32Abs:
    case Opcode::F64Abs: push(on_bits(Op::OpBitwiseAnd, sign - 1)); return;
    case Opcode::F32Neg:
    case Opcode::F64Neg: push(on_bits(Op::OpBitwiseXor, sign)); return;
    // Both modes: the native instructions were seen wrong on one driver
    // (float_rounding.h).
    case Opcode::F32Ceil:
    case Opcode::F64Ceil:
    case Opcode::F32Floor:
    case Opcode::F64Floor:
    case Opcode::F32Trunc:
    case Opcode::F64Trunc:
    case Opcode::F32Nearest:
    case Opcode::F64Nearest: push(round_to_integral(k_, f_, opcode, x)); return;
    case Opcode::F32Sqrt:
    case Opcode::F64Sqrt: push(f_.glsl(GLSLstd450Sqrt, type, {x})); return;
    default: assert(false);
  }
}

// A NaN test on the bits (magnitude above infinity's), not OpIsNan: fast
// mode does not request SignedZeroInfNanPreserve, under which a driver may
// assume that no value is a NaN, and these tests decide traps and results
// that wasm defines in both modes.
Id FunctionLowering::is_nan_bits(Id x, uint32_t bits) {
  const bool wide = bits == 64;
  Id int_type = wide ? k_.types.u64 : k_.types.u32;
  Id magnitude = op(
      Op::OpBitwiseAnd, int_type,
      {op(Op::OpBitcast, int_type, {x}), wide ? b_.const_u64(0x7FFF'FFFF'FFFF'FFFFull) : b_.const_u32(0x7FFF'FFFFu)});
  Id infinity = wide ? b_.const_u64(0x7FF0'0000'0000'0000ull) : b_.const_u32(0x7F80'0000u);
  return op(Op::OpUGreaterThan, k_.types.bool_type, {magnitude, infinity});
}

void FunctionLowering::float_min_max(bool is_min, Id type, uint32_t bits) {
  Id rhs = pop(), lhs = pop();
  Id int_type = bits == 64 ? k_.types.u64 : k_.types.u32;
  Id either_nan = op(Op::OpLogicalOr, k_.types.bool_type, {is_nan_bits(lhs, bits), is_nan_bits(rhs, bits)});
  Id ordered = op(is_min ? Op::OpFOrdLessThan : Op::OpFOrdGreaterThan, k_.types.bool_type, {lhs, rhs});
  Id equal = op(Op::OpFOrdEqual, k_.types.bool_type, {lhs, rhs});
  Id result = op(Op::OpSelect, type, {ordered, lhs, rhs});
  // Equal operands differ at most in the sign of zero: min ORs the signs, max ANDs them.
  Id merged = op(is_min ? Op::OpBitwiseOr : Op::OpBitwiseAnd, int_type,
                 {op(Op::OpBitcast, int_type, {lhs}), op(Op::OpBitcast, int_type, {rhs})});
  result = op(Op::OpSelect, type, {equal, op(Op::OpBitcast, type, {merged}), result});
  Id nan = float_op(Op::OpFAdd, type, lhs, rhs);  // a quiet NaN propagated from the input
  push(op(Op::OpSelect, type, {either_nan, nan, result}));
}

// Float -> integer. In range means trunc(x) is representable: for signed N
// bits x > -2^(N-1) - 1 and x < 2^(N-1); unsigned x > -1 and x < 2^N. The
// bounds are exact in the float type except -2^31 - 1 in f32 and -2^63 - 1,
// which round to -2^(N-1): there the test is x >= -2^(N-1).
void FunctionLowering::truncate(Opcode, uint32_t float_bits, uint32_t int_bits, bool is_signed, bool saturating) {
  Id x = pop();
  Id float_type = float_bits == 64 ? k_.types.f64() : k_.types.f32();
  Id int_type = int_bits == 64 ? k_.types.u64 : k_.types.u32;
  auto float_const = [&](double v) {
    return float_bits == 64 ? b_.const_f64_bits(f64_bits(v)) : b_.const_f32_bits(f32_bits(float(v)));
  };
  auto int_const = [&](uint64_t v) { return int_bits == 64 ? b_.const_u64(v) : b_.const_u32(uint32_t(v)); };
  double upper = std::ldexp(1.0, is_signed ? int(int_bits) - 1 : int(int_bits));
  Id below_upper = op(Op::OpFOrdLessThan, k_.types.bool_type, {x, float_const(upper)});
  Id above_lower;
  if (!is_signed) {
    above_lower = op(Op::OpFOrdGreaterThan, k_.types.bool_type, {x, float_const(-1.0)});
  } else if (float_bits == 64 && int_bits == 32) {
    above_lower = op(Op::OpFOrdGreaterThan, k_.types.bool_type, {x, float_const(-2147483649.0)});
  } else {
    above_lower = op(Op::OpFOrdGreaterThanEqual, k_.types.bool_type, {x, float_const(-upper)});
  }
  Id in_range = op(Op::OpLogicalAnd, k_.types.bool_type, {above_lower, below_upper});
  Id is_nan = is_nan_bits(x, float_bits);
  if (!saturating) {
    f_.if_else(
        is_nan, [&] { k_.helpers->trap(f_, abi::TrapKind::InvalidConversionToInteger); },
        [&] {
          f_.if_else(op(Op::OpLogicalNot, k_.types.bool_type, {in_range}),
                     [&] { k_.helpers->trap(f_, abi::TrapKind::IntegerOverflow); });
        });
  }
  // Convert only in-range values (others are undefined in SPIR-V). An
  // unsigned conversion of (-1, 0] converts +0 instead: a negative operand
  // of OpConvertFToU is undefined even where it truncates to zero, and no
  // rounding instruction is trusted to make it -0 (float_rounding.h).
  Id convertible = in_range;
  if (!is_signed)
    convertible = op(Op::OpLogicalAnd, k_.types.bool_type,
                     {in_range, op(Op::OpFOrdGreaterThan, k_.types.bool_type, {x, float_const(0.0)})});
  Id safe = op(Op::OpSelect, float_type, {convertible, x, float_const(0.0)});
  Id converted = is_signed ? op(Op::OpConvertFToS, int_type, {safe}) : op(Op::OpConvertFToU, int_type, {safe});
  if (!saturating) {
    push(converted);
    return;
  }
  uint64_t max = is_signed ? (uint64_t(1) << (int_bits - 1)) - 1 : (int_bits == 64 ? ~uint64_t(0) : 0xFFFF'FFFFu);
  uint64_t min = is_signed ? uint64_t(1) << (int_bits - 1) : 0;
  Id negative = op(Op::OpFOrdLessThan, k_.types.bool_type, {x, float_const(0.0)});
  Id clamped = op(Op::OpSelect, int_type, {negative, int_const(min), int_const(max)});
  Id result = op(Op::OpSelect, int_type, {in_range, converted, clamped});
  push(op(Op::OpSelect, int_type, {is_nan, int_const(0), result}));
}

Id FunctionLowering::sign_extend(Id value, Id type, uint32_t bits, uint32_t from_bits) {
  Id amount = b_.const_u32(bits - from_bits);
  return op(Op::OpShiftRightArithmetic, type, {op(Op::OpShiftLeftLogical, type, {value, amount}), amount});
}

Id FunctionLowering::effective_address(const wasm::Instr& instr) {
  Id operand = pop();
  // A constant address stays a constant, so that the access can be proven
  // to lie in the module memory (access_path.h).
  if (std::optional<uint64_t> constant = b_.integer_constant(operand)) return b_.const_u64(*constant + instr.imm1);
  Id address = op(Op::OpUConvert, k_.types.u64, {operand});
  if (instr.imm1 != 0) address = op(Op::OpIAdd, k_.types.u64, {address, b_.const_u64(instr.imm1)});
  k_.proofs.address_parts[address] = {operand, uint32_t(instr.imm1)};
  return address;
}

void FunctionLowering::note_shared_proof(Id ea, const wasm::Instr& instr, uint32_t width) {
  if (b_.integer_constant(ea)) return;  // a constant needs no proof; its id is shared
  if (uint32_t invocations = shared_proof(current_ip_, instr.imm1, width)) {
    k_.proofs.shared_proofs[ea] = {.lo = 0, .hi = int64_t(width), .invocations = invocations};
    ++k_.access_paths.proven_shared;
  }
}

void FunctionLowering::load(const wasm::Instr& instr, uint32_t width, bool is_signed, ValType type) {
  Id ea = effective_address(instr);
  Id raw;                   // u32, or u64 for width 8
  if (instr.memory != 0) {  // a memory after the first (extra_memories.cpp)
    raw = k_.helpers->memory_load(f_, instr.memory, ea, width);
  } else {
    note_shared_proof(ea, instr, width);
    raw = grouped_load(ea, width);
    if (!raw) raw = k_.helpers->load(f_, ea, width, pointer_fact(), instr.imm1, launch_recorded(current_ip_));
  }
  switch (type) {
    case ValType::F32: push(op(Op::OpBitcast, k_.types.f32(), {raw})); return;
    case ValType::F64: push(op(Op::OpBitcast, k_.types.f64(), {raw})); return;
    case ValType::I32: push(is_signed && width < 4 ? sign_extend(raw, k_.types.u32, 32, width * 8) : raw); return;
    case ValType::I64:
      if (width == 8) {
        push(raw);
      } else if (is_signed) {
        if (width < 4) raw = sign_extend(raw, k_.types.u32, 32, width * 8);
        push(op(Op::OpSConvert, k_.types.u64, {raw}));
      } else {
        push(op(Op::OpUConvert, k_.types.u64, {raw}));
      }
      return;
    default: assert(false);
  }
}

uint32_t FunctionLowering::shared_proof(size_t ip, uint64_t offset, uint32_t width) const {
  // Functions lowered without facts (the members of a recursive component)
  // prove nothing.
  if (!k_.shared.variable || ip >= facts_->provenance.size()) return 0;
  for (size_t i = 0; i < std::size(kProvenWorkgroupSizes); ++i) {
    if (i > 0 && (i - 1 >= facts_->ranges.size() || ip >= facts_->ranges[i - 1].size())) break;
    // The first size's facts are facts_->provenance themselves.
    const PointerFact& fact = i == 0 ? facts_->provenance[ip] : facts_->ranges[i - 1][ip];
    if (fact.base != PointerFact::Base::Absolute || fact.range.is_full()) continue;
    auto [lo, hi] = fact.range.unsigned_bounds();
    if (lo + offset >= k_.shared.lo && hi + offset + width <= k_.shared.hi) return kProvenWorkgroupSizes[i];
  }
  return 0;
}

void FunctionLowering::prove_group(Id first_ea, std::span<const RuntimeHelpers::GroupedAccess> members,
                                   std::span<const GroupMember> positions) {
  ProofState::SharedProof proof{.lo = INT64_MAX, .hi = INT64_MIN, .invocations = UINT32_MAX};
  for (size_t i = 0; i < members.size(); ++i) {
    const uint32_t invocations = shared_proof(positions[i].ip, members[i].offset, members[i].width);
    if (invocations == 0) return;
    proof.invocations = std::min(proof.invocations, invocations);
    proof.lo = std::min(proof.lo, members[i].delta);
    proof.hi = std::max(proof.hi, members[i].delta + int64_t(members[i].width));
  }
  k_.proofs.shared_proofs[first_ea] = proof;
}

Id FunctionLowering::grouped_load(Id ea, uint32_t width) {
  if (current_ip_ >= facts_->load_groups.group_of.size() || facts_->load_groups.group_of[current_ip_] < 0) return Id();
  const AccessGroup& group = facts_->load_groups.groups[size_t(facts_->load_groups.group_of[current_ip_])];
  if (group.members[0].ip == current_ip_ && facts_->provenance.size() == function_.body.size()) {
    std::vector<RuntimeHelpers::GroupedAccess> members;
    for (const GroupMember& m : group.members)
      members.push_back({m.width, m.delta, m.constant, function_.body[m.ip].imm1, &facts_->provenance[m.ip], Id(), Id(),
                         launch_access(m.ip)});
    prove_group(ea, members, group.members);
    std::vector<Id> variables = k_.helpers->load_group(f_, ea, members, launch_recorded(group.members));
    for (size_t i = 0; i < variables.size(); ++i) grouped_values_[group.members[i].ip] = variables[i];
  }
  auto it = grouped_values_.find(current_ip_);
  return it == grouped_values_.end() ? Id() : f_.load(width == 8 ? k_.types.u64 : k_.types.u32, it->second);
}

bool FunctionLowering::grouped_store(Id ea, Id value, uint32_t width) {
  if (current_ip_ >= facts_->store_groups.group_of.size() || facts_->store_groups.group_of[current_ip_] < 0 ||
      facts_->provenance.size() != function_.body.size())
    return false;
  const AccessGroup& group = facts_->store_groups.groups[size_t(facts_->store_groups.group_of[current_ip_])];
  const size_t index = held_stores_.size();
  // Members follow one another with nothing between (access_groups.h), so
  // the held stores are this group's first members, in order.
  assert(index < group.members.size() && group.members[index].ip == current_ip_);
  const GroupMember& m = group.members[index];
  held_stores_.push_back({width, m.delta, m.constant, function_.body[m.ip].imm1, &facts_->provenance[m.ip], ea, value});
  if (index + 1 < group.members.size()) return true;
  prove_group(held_stores_[0].ea, held_stores_, group.members);
  const bool grouped = k_.helpers->store_group(f_, held_stores_, launch_recorded(group.members));
  if (!grouped)
    for (size_t i = 0; i < held_stores_.size(); ++i) {
      const RuntimeHelpers::GroupedAccess& s = held_stores_[i];
      k_.helpers->store(f_, s.ea, s.value, s.width, s.fact, s.offset, launch_recorded(group.members[i].ip));
    }
  held_stores_.clear();
  return true;
}

void FunctionLowering::store(const wasm::Instr& instr, uint32_t width, ValType type) {
  Id value = pop();
  Id ea = effective_address(instr);
  if (instr.memory == 0) note_shared_proof(ea, instr, width);
  switch (type) {
    case ValType::F32: value = op(Op::OpBitcast, k_.types.u32, {value}); break;
    case ValType::F64: value = op(Op::OpBitcast, k_.types.u64, {value}); break;
    case ValType::I64:
      if (width < 8) value = op(Op::OpUConvert, k_.types.u32, {value});
      break;
    default: break;
  }
  if (instr.memory != 0)
    k_.helpers->memory_store(f_, instr.memory, ea, value, width);
  else if (!grouped_store(ea, value, width))
    k_.helpers->store(f_, ea, value, width, pointer_fact(), instr.imm1, launch_recorded(current_ip_));
}

uint32_t FunctionLowering::memory_pages() const {
  const wasm::Module& m = k_.module;
  if (!m.memories.empty()) return uint32_t(m.memories[0].limits.min);
  for (const wasm::Import& import : m.imports)
    if (import.kind == wasm::ExternalKind::Memory) return uint32_t(import.memory.limits.min);
  return 0;
}

Status FunctionLowering::call(uint32_t function_index) {
  const wasm::FuncType& callee = k_.module.function_type(function_index);
  if (k_.module.imported_function(function_index)) {  // a wasmgpu intrinsic (intrinsics.h)
    size_t first = stack_.size() - callee.params.size();
    std::vector<Id> args(stack_.begin() + first, stack_.end());
    stack_.resize(first);
    // An atomic's address operand (pointer_provenance records it at the
    // call): proven to be an aligned word in the shared range.
    if (uint32_t invocations = shared_proof(current_ip_, 0, 4);
        invocations != 0 && !args.empty() && facts_->provenance.at(current_ip_).alignment(0) >= 4) {
      k_.proofs.shared_proofs[args[0]] = {.lo = 0, .hi = 4, .invocations = invocations};
      ++k_.access_paths.proven_shared;
    }
    Id result = k_.intrinsics->lower_call(f_, function_index, args);
    if (!callee.results.empty()) push(result);
    return {};
  }
  auto it = k_.function_ids.find(function_index);
  if (it == k_.function_ids.end())
    return make_error(ErrorCode::Internal, "function " + k_.module.function_name(function_index) + " was not compiled");
  size_t first = stack_.size() - callee.params.size();
  // No early return when the callee trapped (traps.cpp): the caller winds down too.
  Id result = f_.call(k_.types.result_type(callee.results), it->second, std::span<const Id>(stack_).subspan(first));
  stack_.resize(first);
  if (callee.results.size() == 1) {
    push(result);
  } else {
    for (size_t i = 0; i < callee.results.size(); ++i)
      push(op(Op::OpCompositeExtract, type_of(callee.results[i]), {result, literal(uint32_t(i))}));
  }
  return {};
}

Result<Id> FunctionLowering::global_var(uint32_t global_index) {
  auto it = k_.abi.global_vars.find(global_index);
  if (it != k_.abi.global_vars.end()) return it->second;
  // Globals are Private: every invocation starts from the initial value and
  // its writes are its own. Globals shared by all invocations of a launch
  // (mutable globals other than the stack pointer) are not modelled yet.
  if (global_index < k_.module.imported_globals || global_index >= k_.module.total_globals())
    return make_error(ErrorCode::Compile, "global " + std::to_string(global_index) + " is imported or out of range");
  const wasm::Global& global = k_.module.globals[global_index - k_.module.imported_globals];
  const Id type = type_of(global.type.type);
  if (global.init.instrs.empty())
    return make_error(ErrorCode::Compile, "global " + std::to_string(global_index) + " has no initializer");
  const wasm::Instr& init = global.init.instrs[0];
  Id value;
  switch (init.op) {
    case Opcode::I32Const: value = b_.const_u32(uint32_t(init.imm64)); break;
    case Opcode::I64Const: value = b_.const_u64(init.imm64); break;
    case Opcode::F32Const: value = b_.const_f32_bits(uint32_t(init.imm64)); break;
    case Opcode::F64Const: value = b_.const_f64_bits(init.imm64); break;
    case Opcode::RefNull: value = b_.const_u32(abi::kNullRef); break;
    case Opcode::RefFunc: value = b_.const_u32(init.imm0); break;
    case Opcode::V128Const: {
      const Id words[] = {b_.const_u32(uint32_t(init.imm64)), b_.const_u32(uint32_t(init.imm64 >> 32)),
                          b_.const_u32(uint32_t(init.imm64_hi)), b_.const_u32(uint32_t(init.imm64_hi >> 32))};
      value = b_.const_composite(type, words);
      break;
    }
    default:
      return make_error(ErrorCode::Compile, "global " + std::to_string(global_index) +
                                                " has an initializer that is not a constant (" +
                                                std::string(wasm::info(init.op).text) + ")");
  }
  Id var = b_.global_variable(b_.pointer_type(spv::StorageClass::Private, type), spv::StorageClass::Private, value);
  std::string name = k_.module.global_name(global_index);
  b_.name(var, name.empty() ? "global" + std::to_string(global_index) : name);
  k_.abi.global_vars.emplace(global_index, var);
  return var;
}

Status FunctionLowering::lower_instruction(const wasm::Instr& instr, size_t index) {
  const Id u32 = k_.types.u32, u64 = k_.types.u64;
  current_ip_ = index;
  // Under trap_sites, a trap reports the offset of the last instruction
  // that may trap (a shadow-stack overflow traps at the access, not at the
  // stack pointer's global.set).
  if (k_.trap_sites && wasm::info(instr.op).may_trap) f_.store(k_.abi.trap_site_var, k_.b.const_u32(instr.offset));
  settle_float_run(instr.op);
  if (k_.exact_float && k_.exact_float->lower(f_, instr.op, stack_)) return {};
  if (wasm::info(instr.op).cls == wasm::OpcodeClass::Atomic) {  // threads-proposal atomics (intrinsics.h)
    if (instr.memory != 0)
      return make_error(ErrorCode::Unsupported, "function " + k_.module.function_name(index_) + " uses " +
                                                    std::string(wasm::info(instr.op).text) + " on memory " +
                                                    std::to_string(instr.memory) +
                                                    ": atomics are supported on memory 0 only");
    k_.intrinsics->lower_atomic_instruction(f_, instr, stack_);
    return {};
  }
  switch (instr.op) {
    // --- control ---
    case Opcode::Unreachable: k_.helpers->trap_and_return(f_, abi::TrapKind::Unreachable); break;
    case Opcode::Nop: break;
    case Opcode::Block:
    case Opcode::Loop:
    case Opcode::If: enter_frame(instr, index); break;
    case Opcode::Else: lower_else(); break;
    case Opcode::End: lower_end(); break;
    case Opcode::Br: branch_to(instr.imm0); break;
    case Opcode::BrIf: {
      Id condition = nonzero(pop(), u32);
      if (branches_back_directly(instr.imm0)) {
        Id running = op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)});
        f_.if_else(op(Op::OpLogicalAnd, k_.types.bool_type, {condition, running}),
                   [&] { branch_to(instr.imm0, true); });
      } else {
        f_.if_else(condition, [&] { branch_to(instr.imm0); });
      }
      break;
    }
    case Opcode::BrTable: lower_br_table(instr); break;
    case Opcode::Return: return_values(); break;
    case Opcode::Call: return call(instr.imm0);
    case Opcode::CallIndirect: return call_indirect(instr);
    // Outside a recursive component a tail call is a call and a return: the
    // call graph has no cycle through it, so the depth it adds is bounded
    // (recursive_component.cpp replaces the frame inside a component).
    case Opcode::ReturnCall:
      WASMGPU_TRY(call(instr.imm0));
      return_values();
      break;
    case Opcode::ReturnCallIndirect:
      WASMGPU_TRY(call_indirect(instr));
      return_values();
      break;
    case Opcode::Drop: pop(); break;
    case Opcode::Select:
    case Opcode::SelectTyped: {
      Id condition = nonzero(pop(), u32);
      Id if_false = pop(), if_true = pop();
      push(op(Op::OpSelect, b_.type_of(if_true), {condition, if_true, if_false}));
      break;
    }
    // --- variables ---
    case Opcode::LocalGet: push(f_.load(type_of(local_types_.at(instr.imm0)), locals_.at(instr.imm0))); break;
    case Opcode::LocalSet: f_.store(locals_.at(instr.imm0), pop()); break;
    case Opcode::LocalTee: f_.store(locals_.at(instr.imm0), stack_.back()); break;
    case Opcode::GlobalGet: return global_get(instr.imm0);
    case Opcode::GlobalSet: return global_set(instr.imm0);
    // --- tables and references (table_access.cpp) ---
    case Opcode::TableGet: table_get(instr.imm0); break;
    case Opcode::TableSet: table_set(instr.imm0); break;
    case Opcode::TableInit: return table_init(instr.imm0, instr.imm1);
    case Opcode::ElemDrop: return elem_drop(instr.imm0);
    case Opcode::TableCopy: table_copy(instr.imm0, instr.imm1); break;
    case Opcode::TableGrow: table_grow(instr.imm0); break;
    case Opcode::TableSize: table_size(instr.imm0); break;
    case Opcode::TableFill: table_fill(instr.imm0); break;
    case Opcode::RefNull: push(b_.const_u32(abi::kNullRef)); break;
    case Opcode::RefIsNull:
      push(bool_to_i32(op(Op::OpIEqual, k_.types.bool_type, {pop(), b_.const_u32(abi::kNullRef)})));
      break;
    case Opcode::RefFunc: push(b_.const_u32(instr.imm0)); break;
    // --- memory ---
    case Opcode::I32Load: load(instr, 4, false, ValType::I32); break;
    case Opcode::I64Load: load(instr, 8, false, ValType::I64); break;
    case Opcode::F32Load: load(instr, 4, false, ValType::F32); break;
    case Opcode::F64Load: load(instr, 8, false, ValType::F64); break;
    case Opcode::I32Load8S: load(instr, 1, true, ValType::I32); break;
    case Opcode::I32Load8U: load(instr, 1, false, ValType::I32); break;
    case Opcode::I32Load16S: load(instr, 2, true, ValType::I32); break;
    case Opcode::I32Load16U: load(instr, 2, false, ValType::I32); break;
    case Opcode::I64Load8S: load(instr, 1, true, ValType::I64); break;
    case Opcode::I64Load8U: load(instr, 1, false, ValType::I64); break;
    case Opcode::I64Load16S: load(instr, 2, true, ValType::I64); break;
    case Opcode::I64Load16U: load(instr, 2, false, ValType::I64); break;
    case Opcode::I64Load32S: load(instr, 4, true, ValType::I64); break;
    case Opcode::I64Load32U: load(instr, 4, false, ValType::I64); break;
    case Opcode::I32Store: store(instr, 4, ValType::I32); break;
    case Opcode::I64Store: store(instr, 8, ValType::I64); break;
    case Opcode::F32Store: store(instr, 4, ValType::F32); break;
    case Opcode::F64Store: store(instr, 8, ValType::F64); break;
    case Opcode::I32Store8: store(instr, 1, ValType::I32); break;
    case Opcode::I32Store16: store(instr, 2, ValType::I32); break;
    case Opcode::I64Store8: store(instr, 1, ValType::I64); break;
    case Opcode::I64Store16: store(instr, 2, ValType::I64); break;
    case Opcode::I64Store32: store(instr, 4, ValType::I64); break;
    case Opcode::MemorySize: memory_size(instr.memory); break;
    case Opcode::MemoryGrow: {
      if (k_.instance_state) {
        memory_grow(instr.memory);
        break;
      }
      // Growth always fails (allowed by the spec): the runtime maps a fixed
      // memory. Growing by 0 succeeds and returns the size, as engines do.
      Id delta = pop();
      Id zero = op(Op::OpIEqual, k_.types.bool_type, {delta, b_.const_u32(0)});
      push(op(Op::OpSelect, u32, {zero, b_.const_u32(memory_pages()), b_.const_u32(0xFFFF'FFFFu)}));
      break;
    }
    case Opcode::MemoryCopy: {
      Id count = pop(), source = pop(), dest = pop();
      if (instr.memory != 0 || instr.source_memory != 0)
        k_.helpers->memory_copy_between(f_, instr.memory, instr.source_memory, dest, source, count);
      else
        k_.helpers->copy(f_, dest, source, count);
      break;
    }
    case Opcode::MemoryFill: {
      Id count = pop(), value = pop(), dest = pop();
      if (instr.memory != 0)
        k_.helpers->memory_fill_in(f_, instr.memory, dest, value, count);
      else
        k_.helpers->fill(f_, dest, value, count);
      break;
    }
    case Opcode::MemoryInit: return memory_init(instr.imm0, instr.memory);
    case Opcode::DataDrop: return data_drop(instr.imm0);
    // --- constants ---
    case Opcode::I32Const: push(b_.const_u32(uint32_t(instr.imm64))); break;
    case Opcode::I64Const: push(b_.const_u64(instr.imm64)); break;
    case Opcode::F32Const: push(float_constant(32, instr.imm64)); break;
    case Opcode::F64Const: push(float_constant(64, instr.imm64)); break;
    // --- comparisons ---
    case Opcode::I32Eqz: push(bool_to_i32(op(Op::OpIEqual, k_.types.bool_type, {pop(), b_.const_u32(0)}))); break;
    case Opcode::I64Eqz: push(bool_to_i32(op(Op::OpIEqual, k_.types.bool_type, {pop(), b_.const_u64(0)}))); break;
    case Opcode::I32Eq:
    case Opcode::I64Eq: compare(Op::OpIEqual); break;
    case Opcode::I32Ne:
    case Opcode::I64Ne: compare(Op::OpINotEqual); break;
    case Opcode::I32LtS:
    case Opcode::I64LtS: compare(Op::OpSLessThan); break;
    case Opcode::I32LtU:
    case Opcode::I64LtU: compare(Op::OpULessThan); break;
    case Opcode::I32GtS:
    case Opcode::I64GtS: compare(Op::OpSGreaterThan); break;
    case Opcode::I32GtU:
    case Opcode::I64GtU: compare(Op::OpUGreaterThan); break;
    case Opcode::I32LeS:
    case Opcode::I64LeS: compare(Op::OpSLessThanEqual); break;
    case Opcode::I32LeU:
    case Opcode::I64LeU: compare(Op::OpULessThanEqual); break;
    case Opcode::I32GeS:
    case Opcode::I64GeS: compare(Op::OpSGreaterThanEqual); break;
    case Opcode::I32GeU:
    case Opcode::I64GeU: compare(Op::OpUGreaterThanEqual); break;
    case Opcode::F32Eq:
    case Opcode::F64Eq: compare(Op::OpFOrdEqual); break;
    case Opcode::F32Ne:
    case Opcode::F64Ne: compare(Op::OpFUnordNotEqual); break;
    case Opcode::F32Lt:
    case Opcode::F64Lt: compare(Op::OpFOrdLessThan); break;
    case Opcode::F32Gt:
    case Opcode::F64Gt: compare(Op::OpFOrdGreaterThan); break;
    case Opcode::F32Le:
    case Opcode::F64Le: compare(Op::OpFOrdLessThanEqual); break;
    case Opcode::F32Ge:
    case Opcode::F64Ge: compare(Op::OpFOrdGreaterThanEqual); break;
    // --- integer arithmetic ---
    case Opcode::I32Clz:
    case Opcode::I32Ctz:
    case Opcode::I32Popcnt:
    case Opcode::I64Clz:
    case Opcode::I64Ctz:
    case Opcode::I64Popcnt: count_bits(instr.op); break;
    case Opcode::I32Add: binary(Op::OpIAdd, u32); break;
    case Opcode::I32Sub: binary(Op::OpISub, u32); break;
    case Opcode::I32Mul: binary(Op::OpIMul, u32); break;
    case Opcode::I32DivS:
    case Opcode::I32DivU:
    case Opcode::I32RemS:
    case Opcode::I32RemU: divide(instr.op, u32, 32); break;
    case Opcode::I32And: binary(Op::OpBitwiseAnd, u32); break;
    case Opcode::I32Or: binary(Op::OpBitwiseOr, u32); break;
    case Opcode::I32Xor: binary(Op::OpBitwiseXor, u32); break;
    case Opcode::I32Shl:
    case Opcode::I32ShrS:
    case Opcode::I32ShrU:
    case Opcode::I32Rotl:
    case Opcode::I32Rotr: shift(instr.op, u32, 32); break;
    case Opcode::I64Add: binary(Op::OpIAdd, u64); break;
    case Opcode::I64Sub: binary(Op::OpISub, u64); break;
    case Opcode::I64Mul: binary(Op::OpIMul, u64); break;
    case Opcode::I64DivS:
    case Opcode::I64DivU:
    case Opcode::I64RemS:
    case Opcode::I64RemU: divide(instr.op, u64, 64); break;
    case Opcode::I64And: binary(Op::OpBitwiseAnd, u64); break;
    case Opcode::I64Or: binary(Op::OpBitwiseOr, u64); break;
    case Opcode::I64Xor: binary(Op::OpBitwiseXor, u64); break;
    case Opcode::I64Shl:
    case Opcode::I64ShrS:
    case Opcode::I64ShrU:
    case Opcode::I64Rotl:
    case Opcode::I64Rotr: shift(instr.op, u64, 64); break;
    // --- float arithmetic ---
    case Opcode::F32Abs:
    case Opcode::F32Neg:
    case Opcode::F32Ceil:
    case Opcode::F32Floor:
    case Opcode::F32Trunc:
    case Opcode::F32Nearest:
    case Opcode::F32Sqrt: float_unary(instr.op, k_.types.f32(), 32); break;
    case Opcode::F64Abs:
    case Opcode::F64Neg:
    case Opcode::F64Ceil:
    case Opcode::F64Floor:
    case Opcode::F64Trunc:
    case Opcode::F64Nearest:
    case Opcode::F64Sqrt: float_unary(instr.op, k_.types.f64(), 64); break;
    case Opcode::F32Add:
    case Opcode::F32Sub:
    case Opcode::F32Mul:
    case Opcode::F32Div:
    case Opcode::F64Add:
    case Opcode::F64Sub:
    case Opcode::F64Mul:
    case Opcode::F64Div: {
      bool is64 = wasm::info(instr.op).results[0] == wasm::ValType::F64;
      Id type = is64 ? k_.types.f64() : k_.types.f32();
      Opcode base = is64 ? Opcode::F64Add : Opcode::F32Add;
      static constexpr Op kOps[] = {Op::OpFAdd, Op::OpFSub, Op::OpFMul, Op::OpFDiv};
      Id rhs = pop(), lhs = pop();
      push(float_op(kOps[size_t(instr.op) - size_t(base)], type, lhs, rhs));
      break;
    }
    case Opcode::F32Min: float_min_max(true, k_.types.f32(), 32); break;
    case Opcode::F32Max: float_min_max(false, k_.types.f32(), 32); break;
    case Opcode::F64Min: float_min_max(true, k_.types.f64(), 64); break;
    case Opcode::F64Max: float_min_max(false, k_.types.f64(), 64); break;
    case Opcode::F32Copysign:
    case Opcode::F64Copysign: {
      bool is64 = instr.op == Opcode::F64Copysign;
      Id type = is64 ? k_.types.f64() : k_.types.f32(), int_type = is64 ? u64 : u32;
      uint64_t sign = is64 ? uint64_t(1) << 63 : uint64_t(1) << 31;
      auto constant = [&](uint64_t v) { return is64 ? b_.const_u64(v) : b_.const_u32(uint32_t(v)); };
      Id rhs = op(Op::OpBitcast, int_type, {pop()});
      Id lhs = op(Op::OpBitcast, int_type, {pop()});
      Id magnitude = op(Op::OpBitwiseAnd, int_type, {lhs, constant(sign - 1)});
      Id sign_bit = op(Op::OpBitwiseAnd, int_type, {rhs, constant(sign)});
      push(op(Op::OpBitcast, type, {op(Op::OpBitwiseOr, int_type, {magnitude, sign_bit})}));
      break;
    }
    // --- conversions ---
    case Opcode::I32WrapI64: push(op(Op::OpUConvert, u32, {pop()})); break;
    case Opcode::I32TruncF32S: truncate(instr.op, 32, 32, true, false); break;
    case Opcode::I32TruncF32U: truncate(instr.op, 32, 32, false, false); break;
    case Opcode::I32TruncF64S: truncate(instr.op, 64, 32, true, false); break;
    case Opcode::I32TruncF64U: truncate(instr.op, 64, 32, false, false); break;
    case Opcode::I64TruncF32S: truncate(instr.op, 32, 64, true, false); break;
    case Opcode::I64TruncF32U: truncate(instr.op, 32, 64, false, false); break;
    case Opcode::I64TruncF64S: truncate(instr.op, 64, 64, true, false); break;
    case Opcode::I64TruncF64U: truncate(instr.op, 64, 64, false, false); break;
    case Opcode::I32TruncSatF32S: truncate(instr.op, 32, 32, true, true); break;
    case Opcode::I32TruncSatF32U: truncate(instr.op, 32, 32, false, true); break;
    case Opcode::I32TruncSatF64S: truncate(instr.op, 64, 32, true, true); break;
    case Opcode::I32TruncSatF64U: truncate(instr.op, 64, 32, false, true); break;
    case Opcode::I64TruncSatF32S: truncate(instr.op, 32, 64, true, true); break;
    case Opcode::I64TruncSatF32U: truncate(instr.op, 32, 64, false, true); break;
    case Opcode::I64TruncSatF64S: truncate(instr.op, 64, 64, true, true); break;
    case Opcode::I64TruncSatF64U: truncate(instr.op, 64, 64, false, true); break;
    case Opcode::I64ExtendI32S: push(op(Op::OpSConvert, u64, {pop()})); break;
    case Opcode::I64ExtendI32U: push(op(Op::OpUConvert, u64, {pop()})); break;
    case Opcode::F32ConvertI32S:
    case Opcode::F32ConvertI64S: push(op(Op::OpConvertSToF, k_.types.f32(), {pop()})); break;
    case Opcode::F32ConvertI32U:
    case Opcode::F32ConvertI64U: push(op(Op::OpConvertUToF, k_.types.f32(), {pop()})); break;
    case Opcode::F64ConvertI32S:
    case Opcode::F64ConvertI64S: push(op(Op::OpConvertSToF, k_.types.f64(), {pop()})); break;
    case Opcode::F64ConvertI32U:
    case Opcode::F64ConvertI64U: push(op(Op::OpConvertUToF, k_.types.f64(), {pop()})); break;
    case Opcode::F32DemoteF64: push(op(Op::OpFConvert, k_.types.f32(), {pop()})); break;
    case Opcode::F64PromoteF32: push(op(Op::OpFConvert, k_.types.f64(), {pop()})); break;
    case Opcode::I32ReinterpretF32: push(op(Op::OpBitcast, u32, {pop()})); break;
    case Opcode::I64ReinterpretF64: push(op(Op::OpBitcast, u64, {pop()})); break;
    case Opcode::F32ReinterpretI32: push(op(Op::OpBitcast, k_.types.f32(), {pop()})); break;
    case Opcode::F64ReinterpretI64: push(op(Op::OpBitcast, k_.types.f64(), {pop()})); break;
    case Opcode::I32Extend8S: push(sign_extend(pop(), u32, 32, 8)); break;
    case Opcode::I32Extend16S: push(sign_extend(pop(), u32, 32, 16)); break;
    case Opcode::I64Extend8S: push(sign_extend(pop(), u64, 64, 8)); break;
    case Opcode::I64Extend16S: push(sign_extend(pop(), u64, 64, 16)); break;
    case Opcode::I64Extend32S:
      push(sign_extend(pop(), u64, 64, 32));
      break;
      // --- SIMD (simd_lowering.cpp) ---
#define WASM_OPCODE(name, text, prefix, code, imm, cls, typing, params, results, access, trap) WASMGPU_CASE_##cls(name)
#define WASMGPU_CASE_Control(name)
#define WASMGPU_CASE_Parametric(name)
#define WASMGPU_CASE_Variable(name)
#define WASMGPU_CASE_Table(name)
#define WASMGPU_CASE_Reference(name)
#define WASMGPU_CASE_Memory(name)
#define WASMGPU_CASE_Numeric(name)
#define WASMGPU_CASE_Comparison(name)
#define WASMGPU_CASE_Vector(name) case Opcode::name:  // below
#define WASMGPU_CASE_Atomic(name) case Opcode::name:  // lowered above
#include "wasm/opcodes.def"
#undef WASMGPU_CASE_Atomic
#undef WASMGPU_CASE_Vector
#undef WASMGPU_CASE_Comparison
#undef WASMGPU_CASE_Numeric
#undef WASMGPU_CASE_Memory
#undef WASMGPU_CASE_Reference
#undef WASMGPU_CASE_Table
#undef WASMGPU_CASE_Variable
#undef WASMGPU_CASE_Parametric
#undef WASMGPU_CASE_Control
#undef WASM_OPCODE
      return lower_simd(instr);
  }
  return {};
}

// A signalling NaN written as a float OpConstant comes out quieted on NVIDIA
// (driver 580: `f32.const nan:0x200000` returned 0x7fe00000), so such constants
// are integer constants reinterpreted in the function; drivers keep those bits.
Id FunctionLowering::float_constant(int width, uint64_t bits) {
  if (width == 32) {
    const uint32_t b = uint32_t(bits);
    bool signalling_nan = (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0 && !(b & 0x00400000u);
    if (!signalling_nan) return b_.const_f32_bits(b);
    Id integer_bits = b_.const_u32(b);
    return op(Op::OpBitcast, k_.types.f32(), {integer_bits});
  }
  k_.types.f64();
  bool signalling_nan = (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
                        (bits & 0x000fffffffffffffull) != 0 && !(bits & 0x0008000000000000ull);
  return signalling_nan ? op(Op::OpBitcast, k_.types.f64(), {b_.const_u64(bits)}) : b_.const_f64_bits(bits);
}

}  // namespace wasmgpu::spirv
