// Instruction selection for SIMD (v128): a v128 is a uvec4, its bytes in
// little-endian order (byte 4c + j is bits 8j..8j+7 of word c), as in wasm's
// memory. Integer lane operations work on whole SPIR-V vectors of lanes
// (split/join); float lane operations lower the scalar instruction once per
// lane, so that every mode gives each lane what the scalar gives
// (docs/float-modes.md). Lane loads and stores take the scalar paths, with
// the same bounds checks and traps.
#include <cassert>

#include "spirv/float_exact.h"
#include "spirv/function_lowering.h"

namespace wasmgpu::spirv {

using wasm::Opcode;
using wasm::ValType;
using Op = spv::Op;
using Lanes = LaneShape;

namespace {

uint32_t lane_bits(Lanes shape) {
  switch (shape) {
    case Lanes::I8: return 8;
    case Lanes::I16: return 16;
    case Lanes::I32:
    case Lanes::F32: return 32;
    case Lanes::I64:
    case Lanes::F64: return 64;
  }
  return 32;
}

uint32_t lane_count(Lanes shape) { return 128 / lane_bits(shape); }

}  // namespace

Id FunctionLowering::lane(Id v, Lanes shape, uint32_t index, bool is_signed) {
  const Id u32 = k_.types.u32;
  switch (shape) {
    case Lanes::I8:
    case Lanes::I16: {
      const uint32_t bits = lane_bits(shape), per_word = 32 / bits;
      Id word = op(Op::OpCompositeExtract, u32, {v, literal(index / per_word)});
      return op(is_signed ? Op::OpBitFieldSExtract : Op::OpBitFieldUExtract, u32,
                {word, b_.const_u32(bits * (index % per_word)), b_.const_u32(bits)});
    }
    case Lanes::I32: return op(Op::OpCompositeExtract, u32, {v, literal(index)});
    case Lanes::F32: {
      Id bits = op(Op::OpCompositeExtract, u32, {v, literal(index)});
      return op(Op::OpBitcast, k_.types.f32(), {bits});
    }
    case Lanes::I64: {
      const Id u64x2 = b_.vector_type(k_.types.u64, 2);
      return op(Op::OpCompositeExtract, k_.types.u64, {op(Op::OpBitcast, u64x2, {v}), literal(index)});
    }
    case Lanes::F64: {
      const Id f64 = k_.types.f64(), f64x2 = b_.vector_type(f64, 2);
      return op(Op::OpCompositeExtract, f64, {op(Op::OpBitcast, f64x2, {v}), literal(index)});
    }
  }
  return Id();
}

std::vector<Id> FunctionLowering::lanes(Id v, Lanes shape, bool is_signed) {
  std::vector<Id> out;
  for (uint32_t i = 0; i < lane_count(shape); ++i) out.push_back(lane(v, shape, i, is_signed));
  return out;
}

Id FunctionLowering::from_lanes(Lanes shape, std::span<const Id> values) {
  assert(values.size() == lane_count(shape));
  const Id u32 = k_.types.u32, v128 = k_.types.v128();
  switch (shape) {
    case Lanes::I8:
    case Lanes::I16: {
      const uint32_t bits = lane_bits(shape), per_word = 32 / bits;
      std::vector<Id> words;
      for (uint32_t c = 0; c < 4; ++c) {
        // Each insert replaces all bits above the lanes before it.
        Id word = values[c * per_word];
        for (uint32_t j = 1; j < per_word; ++j)
          word = op(Op::OpBitFieldInsert, u32,
                    {word, values[c * per_word + j], b_.const_u32(bits * j), b_.const_u32(bits)});
        words.push_back(word);
      }
      return f_.op(Op::OpCompositeConstruct, v128, std::span<const Id>(words));
    }
    case Lanes::I32: return f_.op(Op::OpCompositeConstruct, v128, values);
    case Lanes::F32: {
      std::vector<Id> words;
      for (Id v : values) words.push_back(op(Op::OpBitcast, u32, {v}));
      return f_.op(Op::OpCompositeConstruct, v128, std::span<const Id>(words));
    }
    case Lanes::I64: {
      const Id u64x2 = b_.vector_type(k_.types.u64, 2);
      return op(Op::OpBitcast, v128, {f_.op(Op::OpCompositeConstruct, u64x2, values)});
    }
    case Lanes::F64: {
      const Id f64x2 = b_.vector_type(k_.types.f64(), 2);
      return op(Op::OpBitcast, v128, {f_.op(Op::OpCompositeConstruct, f64x2, values)});
    }
  }
  return Id();
}

FunctionLowering::LaneParts FunctionLowering::split(Id v, Lanes shape, bool is_signed) {
  LaneParts out;
  if (shape == Lanes::I64) {
    out.type = b_.vector_type(k_.types.u64, 2);
    out.parts.push_back(op(Op::OpBitcast, out.type, {v}));
    return out;
  }
  out.type = k_.types.v128();
  if (shape == Lanes::I32) {
    out.parts.push_back(v);
    return out;
  }
  const uint32_t bits = lane_bits(shape);
  for (uint32_t k = 0; k < 32 / bits; ++k)
    out.parts.push_back(op(is_signed ? Op::OpBitFieldSExtract : Op::OpBitFieldUExtract, out.type,
                           {v, b_.const_u32(bits * k), b_.const_u32(bits)}));
  return out;
}

Id FunctionLowering::join(Lanes shape, const LaneParts& parts) {
  if (shape == Lanes::I64) return op(Op::OpBitcast, k_.types.v128(), {parts.parts[0]});
  const uint32_t bits = lane_bits(shape);
  Id v = parts.parts[0];
  for (uint32_t k = 1; k < parts.parts.size(); ++k)
    v = op(Op::OpBitFieldInsert, parts.type, {v, parts.parts[k], b_.const_u32(bits * k), b_.const_u32(bits)});
  return v;
}

Id FunctionLowering::splat_constant(Id vector_type, uint64_t value) {
  if (vector_type == k_.types.v128()) {
    const Id c = b_.const_u32(uint32_t(value));
    const Id words[] = {c, c, c, c};
    return b_.const_composite(vector_type, words);
  }
  const Id c = b_.const_u64(value);
  const Id words[] = {c, c};
  return b_.const_composite(vector_type, words);
}

Result<std::vector<Id>> FunctionLowering::per_lane(Opcode scalar, std::initializer_list<Id> operands, Lanes shape,
                                                   uint32_t count) {
  std::vector<std::vector<Id>> inputs;
  for (Id v : operands) inputs.push_back(lanes(v, shape));
  const size_t ip = current_ip_;
  wasm::Instr instr;
  instr.op = scalar;
  for (uint32_t i = 0; i < count; ++i) {
    for (const std::vector<Id>& in : inputs) push(in[i]);
    WASMGPU_TRY(lower_instruction(instr, ip));
  }
  // Exact f32 + - * leave their values on the stack until the run settles.
  if (k_.exact_float) k_.exact_float->settle(f_, stack_);
  current_ip_ = ip;
  std::vector<Id> results(count);
  for (uint32_t i = count; i-- > 0;) results[i] = pop();
  return results;
}

Id FunctionLowering::load_raw(const wasm::Instr& instr, uint32_t width) {
  Id ea = effective_address(instr);
  if (instr.memory != 0) return k_.helpers->memory_load(f_, instr.memory, ea, width);  // extra_memories.cpp
  note_shared_proof(ea, instr, width);
  return k_.helpers->load(f_, ea, width, pointer_fact(), instr.imm1, launch_recorded(current_ip_));
}

void FunctionLowering::store_raw(const wasm::Instr& instr, Id ea, Id value, uint32_t width) {
  if (instr.memory != 0) return k_.helpers->memory_store(f_, instr.memory, ea, value, width);
  k_.helpers->store(f_, ea, value, width, pointer_fact(), instr.imm1, launch_recorded(current_ip_));
}

// One 16-byte access where the address is proven 16-byte aligned in a
// pointer parameter's buffer (RuntimeHelpers::load_v128), else 16 bytes as
// two 8-byte accesses through the scalar paths. The store writes
// the upper half first: when the access runs past the end of memory it is
// the upper half that traps, and a trapped invocation stores nothing more,
// so no byte is written (as wasm requires).
void FunctionLowering::v128_load(const wasm::Instr& instr) {
  Id ea = effective_address(instr);
  if (instr.memory != 0) {  // a memory after the first: two checked 8-byte loads
    Id low = k_.helpers->memory_load(f_, instr.memory, ea, 8);
    Id high = k_.helpers->memory_load(f_, instr.memory, op(Op::OpIAdd, k_.types.u64, {ea, b_.const_u64(8)}), 8);
    const Id halves[] = {low, high};
    push(from_lanes(Lanes::I64, halves));
    return;
  }
  note_shared_proof(ea, instr, 16);
  const bool proven = launch_recorded(current_ip_);
  if (std::optional<Id> v = k_.helpers->load_v128(f_, ea, pointer_fact(), instr.imm1, proven)) {
    push(*v);
    return;
  }
  Id low = k_.helpers->load(f_, ea, 8, pointer_fact(), instr.imm1, proven);
  Id ea_high = b_.integer_constant(ea) ? b_.const_u64(*b_.integer_constant(ea) + 8)
                                       : op(Op::OpIAdd, k_.types.u64, {ea, b_.const_u64(8)});
  Id high = k_.helpers->load(f_, ea_high, 8, pointer_fact(), instr.imm1 + 8, proven);
  const Id halves[] = {low, high};
  push(from_lanes(Lanes::I64, halves));
}

void FunctionLowering::v128_store(const wasm::Instr& instr) {
  Id value = pop();
  Id ea = effective_address(instr);
  if (instr.memory != 0) {  // the upper half first, as below: past the end, nothing is written
    k_.helpers->memory_store(f_, instr.memory, op(Op::OpIAdd, k_.types.u64, {ea, b_.const_u64(8)}),
                             lane(value, Lanes::I64, 1), 8);
    k_.helpers->memory_store(f_, instr.memory, ea, lane(value, Lanes::I64, 0), 8);
    return;
  }
  note_shared_proof(ea, instr, 16);
  const bool proven = launch_recorded(current_ip_);
  if (k_.helpers->store_v128(f_, ea, value, pointer_fact(), instr.imm1, proven)) return;
  Id ea_high = b_.integer_constant(ea) ? b_.const_u64(*b_.integer_constant(ea) + 8)
                                       : op(Op::OpIAdd, k_.types.u64, {ea, b_.const_u64(8)});
  k_.helpers->store(f_, ea_high, lane(value, Lanes::I64, 1), 8, pointer_fact(), instr.imm1 + 8, proven);
  k_.helpers->store(f_, ea, lane(value, Lanes::I64, 0), 8, pointer_fact(), instr.imm1, proven);
}

Status FunctionLowering::lower_simd(const wasm::Instr& instr) {
  const Id u32 = k_.types.u32, u64 = k_.types.u64, v128 = k_.types.v128(), bool_type = k_.types.bool_type;
  auto u32c = [&](uint32_t v) { return b_.const_u32(v); };
  // Integer lanes: `fn` on each part of the operands (split), joined back.
  auto int_lanes = [&](Lanes shape, bool is_signed, std::initializer_list<Id> operands, auto fn) {
    std::vector<LaneParts> in;
    for (Id v : operands) in.push_back(split(v, shape, is_signed));
    LaneParts out{{}, in[0].type};
    for (size_t k = 0; k < in[0].parts.size(); ++k) {
      std::vector<Id> part;
      for (const LaneParts& p : in) part.push_back(p.parts[k]);
      out.parts.push_back(fn(out.type, part));
    }
    return join(shape, out);
  };
  auto bvec = [&](Id type) { return b_.vector_type(bool_type, type == v128 ? 4 : 2); };
  auto int_binary = [&](Lanes shape, bool is_signed, Op opcode) {
    Id rhs = pop(), lhs = pop();
    push(
        int_lanes(shape, is_signed, {lhs, rhs}, [&](Id t, std::vector<Id>& p) { return op(opcode, t, {p[0], p[1]}); }));
  };
  auto int_compare = [&](Lanes shape, bool is_signed, Op opcode) {
    Id rhs = pop(), lhs = pop();
    push(int_lanes(shape, is_signed, {lhs, rhs}, [&](Id t, std::vector<Id>& p) {
      return op(Op::OpSelect, t,
                {op(opcode, bvec(t), {p[0], p[1]}), splat_constant(t, ~uint64_t(0)), splat_constant(t, 0)});
    }));
  };
  auto int_select = [&](Lanes shape, bool is_signed, Op opcode) {  // min/max: opcode(a, b) ? a : b
    Id rhs = pop(), lhs = pop();
    push(int_lanes(shape, is_signed, {lhs, rhs}, [&](Id t, std::vector<Id>& p) {
      return op(Op::OpSelect, t, {op(opcode, bvec(t), {p[0], p[1]}), p[0], p[1]});
    }));
  };
  // Clamps part `x` (i32 lanes of a sign- or zero-extended narrower lane) to [lo, hi] (signed compares).
  auto clamp = [&](Id t, Id x, int64_t lo, int64_t hi) {
    Id low = splat_constant(t, uint64_t(lo)), high = splat_constant(t, uint64_t(hi));
    x = op(Op::OpSelect, t, {op(Op::OpSLessThan, bvec(t), {x, low}), low, x});
    return op(Op::OpSelect, t, {op(Op::OpSGreaterThan, bvec(t), {x, high}), high, x});
  };
  auto saturating = [&](Lanes shape, bool is_signed, Op opcode) {
    const uint32_t bits = lane_bits(shape);
    const int64_t lo = is_signed ? -(int64_t(1) << (bits - 1)) : 0;
    const int64_t hi = is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
    Id rhs = pop(), lhs = pop();
    push(int_lanes(shape, is_signed, {lhs, rhs},
                   [&](Id t, std::vector<Id>& p) { return clamp(t, op(opcode, t, {p[0], p[1]}), lo, hi); }));
  };
  auto int_shift = [&](Lanes shape, Op opcode, bool is_signed) {
    const uint32_t bits = lane_bits(shape);
    Id count = op(Op::OpBitwiseAnd, u32, {pop(), u32c(bits - 1)});
    Id x = pop();
    push(int_lanes(shape, is_signed, {x}, [&](Id t, std::vector<Id>& p) {
      Id n = t == v128 ? count : op(Op::OpUConvert, u64, {count});
      std::vector<Id> counts(t == v128 ? 4 : 2, n);
      return op(opcode, t, {p[0], f_.op(Op::OpCompositeConstruct, t, std::span<const Id>(counts))});
    }));
  };
  auto int_unary = [&](Lanes shape, bool is_signed, auto fn) {
    Id x = pop();
    push(int_lanes(shape, is_signed, {x}, [&](Id t, std::vector<Id>& p) { return fn(t, p[0]); }));
  };
  auto negate = [&](Id t, Id x) { return op(Op::OpISub, t, {splat_constant(t, 0), x}); };
  auto absolute = [&](Id t, Id x) {
    Id zero = splat_constant(t, 0);
    Id negative = op(Op::OpSLessThan, bvec(t), {x, zero});
    return op(Op::OpSelect, t, {negative, negate(t, x), x});
  };
  auto all_true = [&](Lanes shape) {
    LaneParts p = split(pop(), shape, false);
    Id all = b_.const_bool(true);
    for (Id part : p.parts) {
      Id zero = splat_constant(p.type, 0);
      Id nonzero = op(Op::OpINotEqual, bvec(p.type), {part, zero});
      all = op(Op::OpLogicalAnd, bool_type, {all, op(Op::OpAll, bool_type, {nonzero})});
    }
    push(bool_to_i32(all));
  };
  auto bitmask = [&](Lanes shape) {
    const uint32_t bits = lane_bits(shape);
    Id x = pop(), mask = u32c(0);
    for (uint32_t i = 0; i < lane_count(shape); ++i) {
      Id l = lane(x, shape, i);
      Id sign = bits == 64 ? op(Op::OpUConvert, u32, {op(Op::OpShiftRightLogical, u64, {l, u32c(63)})})
                           : op(Op::OpShiftRightLogical, u32, {l, u32c(bits - 1)});
      mask = op(Op::OpBitwiseOr, u32, {mask, op(Op::OpShiftLeftLogical, u32, {sign, u32c(i)})});
    }
    push(mask);
  };
  auto splat = [&](Lanes shape) {
    Id x = pop();
    std::vector<Id> values(lane_count(shape), x);
    push(from_lanes(shape, values));
  };
  auto extract = [&](Lanes shape, bool is_signed) { push(lane(pop(), shape, instr.imm0, is_signed)); };
  auto replace = [&](Lanes shape) {
    Id x = pop();
    std::vector<Id> values = lanes(pop(), shape);
    values[instr.imm0] = x;
    push(from_lanes(shape, values));
  };
  // Narrow: a's lanes then b's, each saturated to the narrower lane.
  auto narrow = [&](Lanes from, Lanes to, bool is_signed) {
    const uint32_t bits = lane_bits(to);
    const int64_t lo = is_signed ? -(int64_t(1) << (bits - 1)) : 0;
    const int64_t hi = is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
    Id b = pop(), a = pop();
    std::vector<Id> values;
    for (Id v : {a, b})
      for (Id l : lanes(v, from, true)) {
        Id low = u32c(uint32_t(lo)), high = u32c(uint32_t(hi));
        l = op(Op::OpSelect, u32, {op(Op::OpSLessThan, bool_type, {l, low}), low, l});
        values.push_back(op(Op::OpSelect, u32, {op(Op::OpSGreaterThan, bool_type, {l, high}), high, l}));
      }
    push(from_lanes(to, values));
  };
  // Lane i of `from`, sign- or zero-extended to the lane type of `to`.
  auto widened = [&](Id v, Lanes from, Lanes to, uint32_t i, bool is_signed) {
    Id l = lane(v, from, i, is_signed);
    if (to != Lanes::I64) return l;
    return op(is_signed ? Op::OpSConvert : Op::OpUConvert, u64, {l});
  };
  auto extend = [&](Lanes from, Lanes to, bool high, bool is_signed) {
    Id x = pop();
    const uint32_t n = lane_count(to), first = high ? n : 0;
    std::vector<Id> values;
    for (uint32_t i = 0; i < n; ++i) values.push_back(widened(x, from, to, first + i, is_signed));
    push(from_lanes(to, values));
  };
  auto extmul = [&](Lanes from, Lanes to, bool high, bool is_signed) {
    Id b = pop(), a = pop();
    const uint32_t n = lane_count(to), first = high ? n : 0;
    const Id t = to == Lanes::I64 ? u64 : u32;
    std::vector<Id> values;
    for (uint32_t i = 0; i < n; ++i)
      values.push_back(
          op(Op::OpIMul, t, {widened(a, from, to, first + i, is_signed), widened(b, from, to, first + i, is_signed)}));
    push(from_lanes(to, values));
  };
  auto extadd_pairwise = [&](Lanes from, Lanes to, bool is_signed) {
    Id x = pop();
    std::vector<Id> values;
    for (uint32_t i = 0; i < lane_count(to); ++i)
      values.push_back(op(Op::OpIAdd, u32, {lane(x, from, 2 * i, is_signed), lane(x, from, 2 * i + 1, is_signed)}));
    push(from_lanes(to, values));
  };
  // Float lanes through the scalar instruction.
  auto float_lanes = [&](Opcode scalar, Lanes shape, uint32_t arity) -> Status {
    Id b = arity == 2 ? pop() : Id(), a = pop();
    Result<std::vector<Id>> r = arity == 2 ? per_lane(scalar, {a, b}, shape, lane_count(shape))
                                           : per_lane(scalar, {a}, shape, lane_count(shape));
    if (!r.ok()) return r.error();
    push(from_lanes(shape, *r));
    return {};
  };
  // Float comparisons: the scalar's i32 0 or 1 per lane, as a lane mask.
  auto float_compare = [&](Opcode scalar, Lanes shape) -> Status {
    Id b = pop(), a = pop();
    WASMGPU_ASSIGN_OR_RETURN(std::vector<Id> r, per_lane(scalar, {a, b}, shape, lane_count(shape)));
    for (Id& l : r) {
      l = op(Op::OpISub, u32, {u32c(0), l});
      if (shape == Lanes::F64) l = op(Op::OpSConvert, u64, {l});
    }
    push(from_lanes(shape == Lanes::F64 ? Lanes::I64 : Lanes::I32, r));
    return {};
  };
  // pmin: b < a ? b : a; pmax: a < b ? b : a (the scalar lt decides).
  auto pseudo_min_max = [&](Lanes shape, bool is_min) -> Status {
    Id b = pop(), a = pop();
    const Opcode lt = shape == Lanes::F32 ? Opcode::F32Lt : Opcode::F64Lt;
    WASMGPU_ASSIGN_OR_RETURN(std::vector<Id> less, is_min ? per_lane(lt, {b, a}, shape, lane_count(shape))
                                                          : per_lane(lt, {a, b}, shape, lane_count(shape)));
    std::vector<Id> la = lanes(a, shape), lb = lanes(b, shape), values;
    const Id t = shape == Lanes::F32 ? k_.types.f32() : k_.types.f64();
    for (uint32_t i = 0; i < lane_count(shape); ++i)
      values.push_back(op(Op::OpSelect, t, {nonzero(less[i], u32), lb[i], la[i]}));
    push(from_lanes(shape, values));
    return {};
  };
  // a * b + c (nmadd: -a * b + c) lane by lane as the scalar neg, mul and add,
  // each rounded as the scalar instruction rounds.
  auto multiply_add = [&](Lanes shape, bool negate_a) -> Status {
    const bool f32 = shape == Lanes::F32;
    Id c = pop(), b = pop(), a = pop();
    if (negate_a) {
      WASMGPU_ASSIGN_OR_RETURN(std::vector<Id> n,
                               per_lane(f32 ? Opcode::F32Neg : Opcode::F64Neg, {a}, shape, lane_count(shape)));
      a = from_lanes(shape, n);
    }
    WASMGPU_ASSIGN_OR_RETURN(std::vector<Id> products,
                             per_lane(f32 ? Opcode::F32Mul : Opcode::F64Mul, {a, b}, shape, lane_count(shape)));
    Id product = from_lanes(shape, products);
    WASMGPU_ASSIGN_OR_RETURN(std::vector<Id> sums,
                             per_lane(f32 ? Opcode::F32Add : Opcode::F64Add, {product, c}, shape, lane_count(shape)));
    push(from_lanes(shape, sums));
    return {};
  };
  // Conversions of the first `count` lanes of `from`, the rest of `to` zero.
  auto convert = [&](Opcode scalar, Lanes from, Lanes to, uint32_t count) -> Status {
    Id x = pop();
    WASMGPU_ASSIGN_OR_RETURN(std::vector<Id> values, per_lane(scalar, {x}, from, count));
    const Id zero = to == Lanes::F32 ? b_.const_f32_bits(0) : to == Lanes::F64 ? b_.const_f64_bits(0) : u32c(0);
    values.resize(lane_count(to), zero);
    push(from_lanes(to, values));
    return {};
  };

  switch (instr.op) {
    // --- memory ---
    case Opcode::V128Load: v128_load(instr); break;
    case Opcode::V128Store: v128_store(instr); break;
    case Opcode::V128Load8x8S:
    case Opcode::V128Load8x8U:
    case Opcode::V128Load16x4S:
    case Opcode::V128Load16x4U:
    case Opcode::V128Load32x2S:
    case Opcode::V128Load32x2U: {
      const size_t n = size_t(instr.op) - size_t(Opcode::V128Load8x8S);
      const bool is_signed = n % 2 == 0;
      const Lanes from = n < 2 ? Lanes::I8 : n < 4 ? Lanes::I16 : Lanes::I32;
      const Lanes to = n < 2 ? Lanes::I16 : n < 4 ? Lanes::I32 : Lanes::I64;
      Id raw = load_raw(instr, 8);
      const Id halves[] = {raw, b_.const_u64(0)};
      Id bytes = from_lanes(Lanes::I64, halves);
      std::vector<Id> values;
      for (uint32_t i = 0; i < lane_count(to); ++i) values.push_back(widened(bytes, from, to, i, is_signed));
      push(from_lanes(to, values));
      break;
    }
    case Opcode::V128Load8Splat:
    case Opcode::V128Load16Splat:
    case Opcode::V128Load32Splat:
    case Opcode::V128Load64Splat: {
      static constexpr Lanes kShapes[] = {Lanes::I8, Lanes::I16, Lanes::I32, Lanes::I64};
      const Lanes shape = kShapes[size_t(instr.op) - size_t(Opcode::V128Load8Splat)];
      push(load_raw(instr, lane_bits(shape) / 8));
      splat(shape);
      break;
    }
    case Opcode::V128Load32Zero: {
      const Id values[] = {load_raw(instr, 4), u32c(0), u32c(0), u32c(0)};
      push(from_lanes(Lanes::I32, values));
      break;
    }
    case Opcode::V128Load64Zero: {
      const Id values[] = {load_raw(instr, 8), b_.const_u64(0)};
      push(from_lanes(Lanes::I64, values));
      break;
    }
    case Opcode::V128Load8Lane:
    case Opcode::V128Load16Lane:
    case Opcode::V128Load32Lane:
    case Opcode::V128Load64Lane: {
      static constexpr Lanes kShapes[] = {Lanes::I8, Lanes::I16, Lanes::I32, Lanes::I64};
      const Lanes shape = kShapes[size_t(instr.op) - size_t(Opcode::V128Load8Lane)];
      Id v = pop();
      Id value = load_raw(instr, lane_bits(shape) / 8);
      std::vector<Id> values = lanes(v, shape);
      values.at(instr.imm64) = value;  // the lane index (module.h: Lane immediates after a memarg)
      push(from_lanes(shape, values));
      break;
    }
    case Opcode::V128Store8Lane:
    case Opcode::V128Store16Lane:
    case Opcode::V128Store32Lane:
    case Opcode::V128Store64Lane: {
      static constexpr Lanes kShapes[] = {Lanes::I8, Lanes::I16, Lanes::I32, Lanes::I64};
      const Lanes shape = kShapes[size_t(instr.op) - size_t(Opcode::V128Store8Lane)];
      Id v = pop();
      Id ea = effective_address(instr);
      if (instr.memory == 0) note_shared_proof(ea, instr, lane_bits(shape) / 8);
      store_raw(instr, ea, lane(v, shape, uint32_t(instr.imm64)), lane_bits(shape) / 8);
      break;
    }
    // --- constants, shuffles, lanes ---
    case Opcode::V128Const: {
      const Id words[] = {u32c(uint32_t(instr.imm64)), u32c(uint32_t(instr.imm64 >> 32)),
                          u32c(uint32_t(instr.imm64_hi)), u32c(uint32_t(instr.imm64_hi >> 32))};
      push(b_.const_composite(v128, words));
      break;
    }
    case Opcode::I8x16Shuffle: {
      Id b = pop(), a = pop();
      std::vector<Id> la = lanes(a, Lanes::I8), lb = lanes(b, Lanes::I8), values;
      for (uint32_t i = 0; i < 16; ++i) {
        const uint32_t index = uint32_t(((i < 8 ? instr.imm64 : instr.imm64_hi) >> (8 * (i % 8))) & 0xFF);
        values.push_back(index < 16 ? la[index] : lb[index - 16]);
      }
      push(from_lanes(Lanes::I8, values));
      break;
    }
    case Opcode::I8x16Swizzle:
    // Relaxed swizzle may give anything for indices from 16 up; the deterministic
    // profile gives swizzle's 0.
    case Opcode::I8x16RelaxedSwizzle: {
      Id s = pop(), a = pop();
      std::vector<Id> values;
      for (uint32_t i = 0; i < 16; ++i) {
        Id index = lane(s, Lanes::I8, i);
        Id in_range = op(Op::OpULessThan, bool_type, {index, u32c(16)});
        Id word = op(Op::OpVectorExtractDynamic, u32,
                     {a, op(Op::OpShiftRightLogical, u32, {op(Op::OpBitwiseAnd, u32, {index, u32c(15)}), u32c(2)})});
        Id shift = op(Op::OpShiftLeftLogical, u32, {op(Op::OpBitwiseAnd, u32, {index, u32c(3)}), u32c(3)});
        Id byte = op(Op::OpBitFieldUExtract, u32, {word, shift, u32c(8)});
        values.push_back(op(Op::OpSelect, u32, {in_range, byte, u32c(0)}));
      }
      push(from_lanes(Lanes::I8, values));
      break;
    }
    case Opcode::I8x16Splat: splat(Lanes::I8); break;
    case Opcode::I16x8Splat: splat(Lanes::I16); break;
    case Opcode::I32x4Splat: splat(Lanes::I32); break;
    case Opcode::I64x2Splat: splat(Lanes::I64); break;
    case Opcode::F32x4Splat: splat(Lanes::F32); break;
    case Opcode::F64x2Splat: splat(Lanes::F64); break;
    case Opcode::I8x16ExtractLaneS: extract(Lanes::I8, true); break;
    case Opcode::I8x16ExtractLaneU: extract(Lanes::I8, false); break;
    case Opcode::I16x8ExtractLaneS: extract(Lanes::I16, true); break;
    case Opcode::I16x8ExtractLaneU: extract(Lanes::I16, false); break;
    case Opcode::I32x4ExtractLane: extract(Lanes::I32, false); break;
    case Opcode::I64x2ExtractLane: extract(Lanes::I64, false); break;
    case Opcode::F32x4ExtractLane: extract(Lanes::F32, false); break;
    case Opcode::F64x2ExtractLane: extract(Lanes::F64, false); break;
    case Opcode::I8x16ReplaceLane: replace(Lanes::I8); break;
    case Opcode::I16x8ReplaceLane: replace(Lanes::I16); break;
    case Opcode::I32x4ReplaceLane: replace(Lanes::I32); break;
    case Opcode::I64x2ReplaceLane: replace(Lanes::I64); break;
    case Opcode::F32x4ReplaceLane: replace(Lanes::F32); break;
    case Opcode::F64x2ReplaceLane: replace(Lanes::F64); break;
    // --- bitwise ---
    case Opcode::V128Not: push(op(Op::OpNot, v128, {pop()})); break;
    case Opcode::V128And: binary(Op::OpBitwiseAnd, v128); break;
    case Opcode::V128Or: binary(Op::OpBitwiseOr, v128); break;
    case Opcode::V128Xor: binary(Op::OpBitwiseXor, v128); break;
    case Opcode::V128Andnot: {
      Id b = pop(), a = pop();
      push(op(Op::OpBitwiseAnd, v128, {a, op(Op::OpNot, v128, {b})}));
      break;
    }
    case Opcode::V128Bitselect:
    // Relaxed laneselect may use only each lane's top mask bit; the deterministic
    // profile selects bit by bit, as bitselect.
    case Opcode::I8x16RelaxedLaneselect:
    case Opcode::I16x8RelaxedLaneselect:
    case Opcode::I32x4RelaxedLaneselect:
    case Opcode::I64x2RelaxedLaneselect: {
      Id mask = pop(), b = pop(), a = pop();
      push(op(Op::OpBitwiseOr, v128,
              {op(Op::OpBitwiseAnd, v128, {a, mask}), op(Op::OpBitwiseAnd, v128, {b, op(Op::OpNot, v128, {mask})})}));
      break;
    }
    case Opcode::V128AnyTrue: {
      Id value = pop(), zero = splat_constant(v128, 0);
      Id nonzero = op(Op::OpINotEqual, bvec(v128), {value, zero});
      push(bool_to_i32(op(Op::OpAny, bool_type, {nonzero})));
      break;
    }
    // --- integer comparisons ---
#define WASMGPU_COMPARES(P, S)                                                   \
  case Opcode::P##Eq: int_compare(Lanes::S, false, Op::OpIEqual); break;         \
  case Opcode::P##Ne: int_compare(Lanes::S, false, Op::OpINotEqual); break;      \
  case Opcode::P##LtS: int_compare(Lanes::S, true, Op::OpSLessThan); break;      \
  case Opcode::P##GtS: int_compare(Lanes::S, true, Op::OpSGreaterThan); break;   \
  case Opcode::P##LeS: int_compare(Lanes::S, true, Op::OpSLessThanEqual); break; \
  case Opcode::P##GeS: int_compare(Lanes::S, true, Op::OpSGreaterThanEqual); break;
#define WASMGPU_UNSIGNED_COMPARES(P, S)                                           \
  case Opcode::P##LtU: int_compare(Lanes::S, false, Op::OpULessThan); break;      \
  case Opcode::P##GtU: int_compare(Lanes::S, false, Op::OpUGreaterThan); break;   \
  case Opcode::P##LeU: int_compare(Lanes::S, false, Op::OpULessThanEqual); break; \
  case Opcode::P##GeU: int_compare(Lanes::S, false, Op::OpUGreaterThanEqual); break;
      WASMGPU_COMPARES(I8x16, I8)
      WASMGPU_UNSIGNED_COMPARES(I8x16, I8)
      WASMGPU_COMPARES(I16x8, I16)
      WASMGPU_UNSIGNED_COMPARES(I16x8, I16)
      WASMGPU_COMPARES(I32x4, I32)
      WASMGPU_UNSIGNED_COMPARES(I32x4, I32)
      WASMGPU_COMPARES(I64x2, I64)
#undef WASMGPU_UNSIGNED_COMPARES
#undef WASMGPU_COMPARES
      // --- integer arithmetic ---
#define WASMGPU_INT_ARITH(P, S)                                                       \
  case Opcode::P##Add: int_binary(Lanes::S, false, Op::OpIAdd); break;                \
  case Opcode::P##Sub: int_binary(Lanes::S, false, Op::OpISub); break;                \
  case Opcode::P##Neg: int_unary(Lanes::S, false, negate); break;                     \
  case Opcode::P##Abs: int_unary(Lanes::S, true, absolute); break;                    \
  case Opcode::P##Shl: int_shift(Lanes::S, Op::OpShiftLeftLogical, false); break;     \
  case Opcode::P##ShrS: int_shift(Lanes::S, Op::OpShiftRightArithmetic, true); break; \
  case Opcode::P##ShrU: int_shift(Lanes::S, Op::OpShiftRightLogical, false); break;   \
  case Opcode::P##AllTrue: all_true(Lanes::S); break;                                 \
  case Opcode::P##Bitmask: bitmask(Lanes::S); break;
      WASMGPU_INT_ARITH(I8x16, I8)
      WASMGPU_INT_ARITH(I16x8, I16)
      WASMGPU_INT_ARITH(I32x4, I32)
      WASMGPU_INT_ARITH(I64x2, I64)
#undef WASMGPU_INT_ARITH
#define WASMGPU_MIN_MAX(P, S)                                                  \
  case Opcode::P##MinS: int_select(Lanes::S, true, Op::OpSLessThan); break;    \
  case Opcode::P##MinU: int_select(Lanes::S, false, Op::OpULessThan); break;   \
  case Opcode::P##MaxS: int_select(Lanes::S, true, Op::OpSGreaterThan); break; \
  case Opcode::P##MaxU: int_select(Lanes::S, false, Op::OpUGreaterThan); break;
      WASMGPU_MIN_MAX(I8x16, I8)
      WASMGPU_MIN_MAX(I16x8, I16)
      WASMGPU_MIN_MAX(I32x4, I32)
#undef WASMGPU_MIN_MAX
    case Opcode::I16x8Mul: int_binary(Lanes::I16, false, Op::OpIMul); break;
    case Opcode::I32x4Mul: int_binary(Lanes::I32, false, Op::OpIMul); break;
    case Opcode::I64x2Mul: int_binary(Lanes::I64, false, Op::OpIMul); break;
    case Opcode::I8x16AddSatS: saturating(Lanes::I8, true, Op::OpIAdd); break;
    case Opcode::I8x16AddSatU: saturating(Lanes::I8, false, Op::OpIAdd); break;
    case Opcode::I8x16SubSatS: saturating(Lanes::I8, true, Op::OpISub); break;
    case Opcode::I8x16SubSatU: saturating(Lanes::I8, false, Op::OpISub); break;
    case Opcode::I16x8AddSatS: saturating(Lanes::I16, true, Op::OpIAdd); break;
    case Opcode::I16x8AddSatU: saturating(Lanes::I16, false, Op::OpIAdd); break;
    case Opcode::I16x8SubSatS: saturating(Lanes::I16, true, Op::OpISub); break;
    case Opcode::I16x8SubSatU: saturating(Lanes::I16, false, Op::OpISub); break;
    case Opcode::I8x16AvgrU:
    case Opcode::I16x8AvgrU: {
      Id b = pop(), a = pop();
      push(int_lanes(instr.op == Opcode::I8x16AvgrU ? Lanes::I8 : Lanes::I16, false, {a, b},
                     [&](Id t, std::vector<Id>& p) {
                       Id sum = op(Op::OpIAdd, t, {op(Op::OpIAdd, t, {p[0], p[1]}), splat_constant(t, 1)});
                       return op(Op::OpShiftRightLogical, t, {sum, splat_constant(t, 1)});
                     }));
      break;
    }
    case Opcode::I8x16Popcnt:
      int_unary(Lanes::I8, false, [&](Id t, Id x) { return op(Op::OpBitCount, t, {x}); });
      break;
    case Opcode::I16x8Q15mulrSatS:
    // Relaxed q15mulr may wrap the one overflowing case (-32768 * -32768); the
    // deterministic profile saturates.
    case Opcode::I16x8RelaxedQ15mulrS: {
      Id b = pop(), a = pop();
      push(int_lanes(Lanes::I16, true, {a, b}, [&](Id t, std::vector<Id>& p) {
        Id product = op(Op::OpIAdd, t, {op(Op::OpIMul, t, {p[0], p[1]}), splat_constant(t, 0x4000)});
        return clamp(t, op(Op::OpShiftRightArithmetic, t, {product, splat_constant(t, 15)}), -0x8000, 0x7FFF);
      }));
      break;
    }
    case Opcode::I8x16NarrowI16x8S: narrow(Lanes::I16, Lanes::I8, true); break;
    case Opcode::I8x16NarrowI16x8U: narrow(Lanes::I16, Lanes::I8, false); break;
    case Opcode::I16x8NarrowI32x4S: narrow(Lanes::I32, Lanes::I16, true); break;
    case Opcode::I16x8NarrowI32x4U: narrow(Lanes::I32, Lanes::I16, false); break;
    case Opcode::I16x8ExtendLowI8x16S: extend(Lanes::I8, Lanes::I16, false, true); break;
    case Opcode::I16x8ExtendHighI8x16S: extend(Lanes::I8, Lanes::I16, true, true); break;
    case Opcode::I16x8ExtendLowI8x16U: extend(Lanes::I8, Lanes::I16, false, false); break;
    case Opcode::I16x8ExtendHighI8x16U: extend(Lanes::I8, Lanes::I16, true, false); break;
    case Opcode::I32x4ExtendLowI16x8S: extend(Lanes::I16, Lanes::I32, false, true); break;
    case Opcode::I32x4ExtendHighI16x8S: extend(Lanes::I16, Lanes::I32, true, true); break;
    case Opcode::I32x4ExtendLowI16x8U: extend(Lanes::I16, Lanes::I32, false, false); break;
    case Opcode::I32x4ExtendHighI16x8U: extend(Lanes::I16, Lanes::I32, true, false); break;
    case Opcode::I64x2ExtendLowI32x4S: extend(Lanes::I32, Lanes::I64, false, true); break;
    case Opcode::I64x2ExtendHighI32x4S: extend(Lanes::I32, Lanes::I64, true, true); break;
    case Opcode::I64x2ExtendLowI32x4U: extend(Lanes::I32, Lanes::I64, false, false); break;
    case Opcode::I64x2ExtendHighI32x4U: extend(Lanes::I32, Lanes::I64, true, false); break;
    case Opcode::I16x8ExtmulLowI8x16S: extmul(Lanes::I8, Lanes::I16, false, true); break;
    case Opcode::I16x8ExtmulHighI8x16S: extmul(Lanes::I8, Lanes::I16, true, true); break;
    case Opcode::I16x8ExtmulLowI8x16U: extmul(Lanes::I8, Lanes::I16, false, false); break;
    case Opcode::I16x8ExtmulHighI8x16U: extmul(Lanes::I8, Lanes::I16, true, false); break;
    case Opcode::I32x4ExtmulLowI16x8S: extmul(Lanes::I16, Lanes::I32, false, true); break;
    case Opcode::I32x4ExtmulHighI16x8S: extmul(Lanes::I16, Lanes::I32, true, true); break;
    case Opcode::I32x4ExtmulLowI16x8U: extmul(Lanes::I16, Lanes::I32, false, false); break;
    case Opcode::I32x4ExtmulHighI16x8U: extmul(Lanes::I16, Lanes::I32, true, false); break;
    case Opcode::I64x2ExtmulLowI32x4S: extmul(Lanes::I32, Lanes::I64, false, true); break;
    case Opcode::I64x2ExtmulHighI32x4S: extmul(Lanes::I32, Lanes::I64, true, true); break;
    case Opcode::I64x2ExtmulLowI32x4U: extmul(Lanes::I32, Lanes::I64, false, false); break;
    case Opcode::I64x2ExtmulHighI32x4U: extmul(Lanes::I32, Lanes::I64, true, false); break;
    case Opcode::I16x8ExtaddPairwiseI8x16S: extadd_pairwise(Lanes::I8, Lanes::I16, true); break;
    case Opcode::I16x8ExtaddPairwiseI8x16U: extadd_pairwise(Lanes::I8, Lanes::I16, false); break;
    case Opcode::I32x4ExtaddPairwiseI16x8S: extadd_pairwise(Lanes::I16, Lanes::I32, true); break;
    case Opcode::I32x4ExtaddPairwiseI16x8U: extadd_pairwise(Lanes::I16, Lanes::I32, false); break;
    case Opcode::I32x4DotI16x8S: {
      Id b = pop(), a = pop();
      std::vector<Id> la = lanes(a, Lanes::I16, true), lb = lanes(b, Lanes::I16, true), values;
      for (uint32_t i = 0; i < 4; ++i)
        values.push_back(
            op(Op::OpIAdd, u32,
               {op(Op::OpIMul, u32, {la[2 * i], lb[2 * i]}), op(Op::OpIMul, u32, {la[2 * i + 1], lb[2 * i + 1]})}));
      push(from_lanes(Lanes::I32, values));
      break;
    }
    // Relaxed dot products (deterministic profile: both operands' bytes signed):
    // each i16 lane the saturating sum of two adjacent byte products, as the
    // spec's iadd_sat (only 2 * (-128 * -128) = 32768 saturates); the i32 form
    // adds each lane's two such sums and its lane of c.
    case Opcode::I16x8RelaxedDotI8x16I7x16S:
    case Opcode::I32x4RelaxedDotI8x16I7x16AddS: {
      const bool add = instr.op == Opcode::I32x4RelaxedDotI8x16I7x16AddS;
      Id c = add ? pop() : Id(), b = pop(), a = pop();
      std::vector<Id> la = lanes(a, Lanes::I8, true), lb = lanes(b, Lanes::I8, true), sums;
      for (uint32_t i = 0; i < 8; ++i) {
        Id sum = op(Op::OpIAdd, u32,
                    {op(Op::OpIMul, u32, {la[2 * i], lb[2 * i]}), op(Op::OpIMul, u32, {la[2 * i + 1], lb[2 * i + 1]})});
        Id low = u32c(uint32_t(-0x8000)), high = u32c(0x7FFF);
        sum = op(Op::OpSelect, u32, {op(Op::OpSLessThan, bool_type, {sum, low}), low, sum});
        sums.push_back(op(Op::OpSelect, u32, {op(Op::OpSGreaterThan, bool_type, {sum, high}), high, sum}));
      }
      if (!add) {
        push(from_lanes(Lanes::I16, sums));
        break;
      }
      std::vector<Id> lc = lanes(c, Lanes::I32), values;
      for (uint32_t i = 0; i < 4; ++i)
        values.push_back(op(Op::OpIAdd, u32, {op(Op::OpIAdd, u32, {sums[2 * i], sums[2 * i + 1]}), lc[i]}));
      push(from_lanes(Lanes::I32, values));
      break;
    }
    // --- floats: each lane as the scalar instruction ---
#define WASMGPU_FLOAT(P, S, SCALAR)                                                  \
  case Opcode::P##Add: return float_lanes(Opcode::SCALAR##Add, Lanes::S, 2);         \
  case Opcode::P##Sub: return float_lanes(Opcode::SCALAR##Sub, Lanes::S, 2);         \
  case Opcode::P##Mul: return float_lanes(Opcode::SCALAR##Mul, Lanes::S, 2);         \
  case Opcode::P##Div: return float_lanes(Opcode::SCALAR##Div, Lanes::S, 2);         \
  case Opcode::P##Min: return float_lanes(Opcode::SCALAR##Min, Lanes::S, 2);         \
  case Opcode::P##Max: return float_lanes(Opcode::SCALAR##Max, Lanes::S, 2);         \
  case Opcode::P##Abs: return float_lanes(Opcode::SCALAR##Abs, Lanes::S, 1);         \
  case Opcode::P##Neg: return float_lanes(Opcode::SCALAR##Neg, Lanes::S, 1);         \
  case Opcode::P##Sqrt: return float_lanes(Opcode::SCALAR##Sqrt, Lanes::S, 1);       \
  case Opcode::P##Ceil: return float_lanes(Opcode::SCALAR##Ceil, Lanes::S, 1);       \
  case Opcode::P##Floor: return float_lanes(Opcode::SCALAR##Floor, Lanes::S, 1);     \
  case Opcode::P##Trunc: return float_lanes(Opcode::SCALAR##Trunc, Lanes::S, 1);     \
  case Opcode::P##Nearest: return float_lanes(Opcode::SCALAR##Nearest, Lanes::S, 1); \
  case Opcode::P##Eq: return float_compare(Opcode::SCALAR##Eq, Lanes::S);            \
  case Opcode::P##Ne: return float_compare(Opcode::SCALAR##Ne, Lanes::S);            \
  case Opcode::P##Lt: return float_compare(Opcode::SCALAR##Lt, Lanes::S);            \
  case Opcode::P##Gt: return float_compare(Opcode::SCALAR##Gt, Lanes::S);            \
  case Opcode::P##Le: return float_compare(Opcode::SCALAR##Le, Lanes::S);            \
  case Opcode::P##Ge: return float_compare(Opcode::SCALAR##Ge, Lanes::S);            \
  case Opcode::P##Pmin: return pseudo_min_max(Lanes::S, true);                       \
  case Opcode::P##Pmax: return pseudo_min_max(Lanes::S, false);
      WASMGPU_FLOAT(F32x4, F32, F32)
      WASMGPU_FLOAT(F64x2, F64, F64)
#undef WASMGPU_FLOAT
    // Relaxed madd/nmadd may fuse; the deterministic profile does not: the
    // scalar mul, then the scalar add (two roundings in exact mode; fast mode
    // lets the device contract them, as any a*b + c), nmadd negating a first.
    case Opcode::F32x4RelaxedMadd: return multiply_add(Lanes::F32, false);
    case Opcode::F32x4RelaxedNmadd: return multiply_add(Lanes::F32, true);
    case Opcode::F64x2RelaxedMadd: return multiply_add(Lanes::F64, false);
    case Opcode::F64x2RelaxedNmadd: return multiply_add(Lanes::F64, true);
    // Relaxed min/max may differ from min/max for NaN and signed-zero lanes; the
    // deterministic profile is wasm's min/max.
    case Opcode::F32x4RelaxedMin: return float_lanes(Opcode::F32Min, Lanes::F32, 2);
    case Opcode::F32x4RelaxedMax: return float_lanes(Opcode::F32Max, Lanes::F32, 2);
    case Opcode::F64x2RelaxedMin: return float_lanes(Opcode::F64Min, Lanes::F64, 2);
    case Opcode::F64x2RelaxedMax: return float_lanes(Opcode::F64Max, Lanes::F64, 2);
    case Opcode::F32x4ConvertI32x4S: return convert(Opcode::F32ConvertI32S, Lanes::I32, Lanes::F32, 4);
    case Opcode::F32x4ConvertI32x4U: return convert(Opcode::F32ConvertI32U, Lanes::I32, Lanes::F32, 4);
    case Opcode::I32x4TruncSatF32x4S: return convert(Opcode::I32TruncSatF32S, Lanes::F32, Lanes::I32, 4);
    // Relaxed SIMD lets NaN and out-of-range lanes give the saturated result, so the
    // relaxed forms are the saturating ones, in both float modes and on every device.
    case Opcode::I32x4RelaxedTruncF32x4S: return convert(Opcode::I32TruncSatF32S, Lanes::F32, Lanes::I32, 4);
    case Opcode::I32x4TruncSatF32x4U:
    case Opcode::I32x4RelaxedTruncF32x4U: return convert(Opcode::I32TruncSatF32U, Lanes::F32, Lanes::I32, 4);
    case Opcode::I32x4TruncSatF64x2SZero:
    case Opcode::I32x4RelaxedTruncF64x2SZero: return convert(Opcode::I32TruncSatF64S, Lanes::F64, Lanes::I32, 2);
    case Opcode::I32x4TruncSatF64x2UZero:
    case Opcode::I32x4RelaxedTruncF64x2UZero: return convert(Opcode::I32TruncSatF64U, Lanes::F64, Lanes::I32, 2);
    case Opcode::F64x2ConvertLowI32x4S: return convert(Opcode::F64ConvertI32S, Lanes::I32, Lanes::F64, 2);
    case Opcode::F64x2ConvertLowI32x4U: return convert(Opcode::F64ConvertI32U, Lanes::I32, Lanes::F64, 2);
    case Opcode::F32x4DemoteF64x2Zero: return convert(Opcode::F32DemoteF64, Lanes::F64, Lanes::F32, 2);
    case Opcode::F64x2PromoteLowF32x4: return convert(Opcode::F64PromoteF32, Lanes::F32, Lanes::F64, 2);
    default:
      return make_error(ErrorCode::Internal, "function " + k_.module.function_name(index_) + " uses " +
                                                 std::string(wasm::info(instr.op).text) + " (not a SIMD instruction)");
  }
  return {};
}

}  // namespace wasmgpu::spirv
