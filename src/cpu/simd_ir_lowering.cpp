#include "cpu/simd_ir_lowering.h"

#include <llvm/IR/Intrinsics.h>

#include <functional>
#include <vector>

namespace wasmgpu::cpu {

llvm::FixedVectorType* v128_type(llvm::LLVMContext& context) {
  return llvm::FixedVectorType::get(llvm::Type::getInt64Ty(context), 2);
}

namespace {

using wasm::Opcode;
using Value = llvm::Value;
using Fn1 = std::function<Value*(Value*)>;
using Fn2 = std::function<Value*(Value*, Value*)>;
namespace I = llvm::Intrinsic;

class SimdLowering {
 public:
  SimdLowering(llvm::IRBuilder<>& b, FloatRules rules, SimdHost& host) : b_(b), rules_(rules), host_(host) {}

  bool lower(const wasm::Instr& instr);

 private:
  // Lane shapes.
  llvm::FixedVectorType* ints(unsigned bits, unsigned lanes) {
    return llvm::FixedVectorType::get(b_.getIntNTy(bits), lanes);
  }
  llvm::FixedVectorType* i8x16() { return ints(8, 16); }
  llvm::FixedVectorType* i16x8() { return ints(16, 8); }
  llvm::FixedVectorType* i32x4() { return ints(32, 4); }
  llvm::FixedVectorType* i64x2() { return ints(64, 2); }
  llvm::FixedVectorType* f32x4() { return llvm::FixedVectorType::get(b_.getFloatTy(), 4); }
  llvm::FixedVectorType* f64x2() { return llvm::FixedVectorType::get(b_.getDoubleTy(), 2); }
  // The integer shape of a float shape (or the shape itself).
  llvm::Type* int_shape(llvm::Type* t) { return t->getWithNewType(b_.getIntNTy(t->getScalarSizeInBits())); }
  unsigned lanes(llvm::Type* t) { return unsigned(llvm::cast<llvm::FixedVectorType>(t)->getNumElements()); }

  Value* pop_as(llvm::Type* t) { return b_.CreateBitCast(host_.pop(), t); }
  void push_v(Value* v) { host_.push(b_.CreateBitCast(v, v128_type(b_.getContext()))); }
  Value* splat_const(llvm::Type* t, uint64_t v) { return llvm::ConstantInt::get(t, v); }
  Value* splat_signed(llvm::Type* t, int64_t v) { return llvm::ConstantInt::getSigned(t, v); }

  void unary(llvm::Type* t, const Fn1& make) { push_v(make(pop_as(t))); }
  void binary(llvm::Type* t, const Fn2& make) {
    Value* rhs = pop_as(t);
    Value* lhs = pop_as(t);
    push_v(make(lhs, rhs));
  }
  void compare(llvm::Type* t, llvm::CmpInst::Predicate predicate) {
    binary(t, [&](Value* a, Value* c) { return b_.CreateSExt(b_.CreateCmp(predicate, a, c), int_shape(t)); });
  }
  void intrinsic2(llvm::Type* t, llvm::Intrinsic::ID id) {
    binary(t, [&](Value* a, Value* c) { return b_.CreateBinaryIntrinsic(id, a, c); });
  }
  // Shifts take the count modulo the lane width.
  void shift(llvm::Type* t, llvm::Instruction::BinaryOps op) {
    Value* count = host_.pop();
    Value* a = pop_as(t);
    const unsigned bits = t->getScalarSizeInBits();
    count = b_.CreateAnd(count, b_.getInt32(bits - 1));
    count = b_.CreateZExtOrTrunc(count, t->getScalarType());
    push_v(b_.CreateBinOp(op, a, b_.CreateVectorSplat(lanes(t), count)));
  }
  // Lanes [first, first + count) of `a`.
  Value* slice(Value* a, unsigned first, unsigned count) {
    std::vector<int> mask;
    for (unsigned i = 0; i < count; ++i) mask.push_back(int(first + i));
    return b_.CreateShuffleVector(a, a, mask);
  }
  // Every second lane of `a`, from `first`.
  Value* every_other(Value* a, unsigned first) {
    std::vector<int> mask;
    for (unsigned i = first; i < lanes(a->getType()); i += 2) mask.push_back(int(i));
    return b_.CreateShuffleVector(a, a, mask);
  }
  // `a`'s lanes widened to twice their width.
  Value* widen(Value* a, bool is_signed) {
    llvm::Type* wide = ints(2 * a->getType()->getScalarSizeInBits(), lanes(a->getType()));
    return is_signed ? b_.CreateSExt(a, wide) : b_.CreateZExt(a, wide);
  }
  // The low or high half of a `narrow` shape, widened.
  Value* half(Value* a, bool high, bool is_signed) {
    const unsigned n = lanes(a->getType()) / 2;
    return widen(slice(a, high ? n : 0, n), is_signed);
  }
  void extend(llvm::Type* narrow, bool high, bool is_signed) {
    unary(narrow, [&](Value* a) { return half(a, high, is_signed); });
  }
  void extmul(llvm::Type* narrow, bool high, bool is_signed) {
    binary(narrow,
           [&](Value* a, Value* c) { return b_.CreateMul(half(a, high, is_signed), half(c, high, is_signed)); });
  }
  void extadd_pairwise(llvm::Type* narrow, bool is_signed) {
    unary(narrow, [&](Value* a) {
      return b_.CreateAdd(widen(every_other(a, 0), is_signed), widen(every_other(a, 1), is_signed));
    });
  }
  // Both operands' lanes, saturated into lanes of half the width.
  void narrow(llvm::Type* wide, bool is_signed) {
    binary(wide, [&](Value* a, Value* c) {
      const unsigned n = lanes(wide);
      std::vector<int> mask;
      for (unsigned i = 0; i < 2 * n; ++i) mask.push_back(int(i));
      Value* both = b_.CreateShuffleVector(a, c, mask);
      const unsigned bits = wide->getScalarSizeInBits() / 2;
      llvm::Type* type = both->getType();
      Value* lo = is_signed ? splat_signed(type, -(int64_t(1) << (bits - 1))) : splat_const(type, 0);
      Value* hi = splat_const(type, is_signed ? (uint64_t(1) << (bits - 1)) - 1 : (uint64_t(1) << bits) - 1);
      Value* clamped = b_.CreateBinaryIntrinsic(I::smin, b_.CreateBinaryIntrinsic(I::smax, both, lo), hi);
      return b_.CreateTrunc(clamped, ints(bits, 2 * n));
    });
  }
  void avgr(llvm::Type* t) {
    binary(t, [&](Value* a, Value* c) {
      Value* sum =
          b_.CreateAdd(b_.CreateAdd(widen(a, false), widen(c, false)), splat_const(widen(a, false)->getType(), 1));
      return b_.CreateTrunc(b_.CreateLShr(sum, 1), t);
    });
  }
  void all_true(llvm::Type* t) {
    Value* a = pop_as(t);
    Value* nonzero = b_.CreateICmpNE(a, llvm::Constant::getNullValue(t));
    host_.push(b_.CreateZExt(b_.CreateAndReduce(nonzero), b_.getInt32Ty()));
  }
  void bitmask(llvm::Type* t) {
    Value* a = pop_as(t);
    Value* negative = b_.CreateICmpSLT(a, llvm::Constant::getNullValue(t));
    host_.push(b_.CreateZExt(b_.CreateBitCast(negative, b_.getIntNTy(lanes(t))), b_.getInt32Ty()));
  }
  void splat(llvm::Type* t) {
    Value* x = host_.pop();
    llvm::Type* lane = t->getScalarType();
    if (lane->isIntegerTy() && x->getType() != lane) x = b_.CreateTrunc(x, lane);
    push_v(b_.CreateVectorSplat(lanes(t), x));
  }
  // extract_lane; `extend` widens an i8/i16 lane to i32.
  void extract(llvm::Type* t, uint32_t lane, wasm::Extend extend = wasm::Extend::Full) {
    Value* x = b_.CreateExtractElement(pop_as(t), b_.getInt32(lane));
    if (extend == wasm::Extend::Sign) x = b_.CreateSExt(x, b_.getInt32Ty());
    if (extend == wasm::Extend::Zero) x = b_.CreateZExt(x, b_.getInt32Ty());
    host_.push(x);
  }
  void replace(llvm::Type* t, uint32_t lane) {
    Value* x = host_.pop();
    Value* a = pop_as(t);
    llvm::Type* type = t->getScalarType();
    if (type->isIntegerTy() && x->getType() != type) x = b_.CreateTrunc(x, type);
    push_v(b_.CreateInsertElement(a, x, b_.getInt32(lane)));
  }
  // Lane i of `a` at index[i], 0 for an index from 16 up.
  Value* swizzle(Value* a, Value* index) {
    Value* out = llvm::Constant::getNullValue(i8x16());
    for (uint32_t i = 0; i < 16; ++i) {
      Value* k = b_.CreateExtractElement(index, b_.getInt32(i));
      Value* in = b_.CreateICmpULT(k, b_.getInt8(16));
      Value* lane = b_.CreateExtractElement(a, b_.CreateZExt(b_.CreateAnd(k, b_.getInt8(15)), b_.getInt32Ty()));
      out = b_.CreateInsertElement(out, b_.CreateSelect(in, lane, b_.getInt8(0)), b_.getInt32(i));
    }
    return out;
  }
  Value* bitselect(Value* v1, Value* v2, Value* c) {
    return b_.CreateOr(b_.CreateAnd(v1, c), b_.CreateAnd(v2, b_.CreateNot(c)));
  }
  // i16x8.q15mulr_sat_s: (a * b + 2^14) >> 15, saturated.
  Value* q15mulr(Value* a, Value* c) {
    Value* product = b_.CreateMul(widen(a, true), widen(c, true));
    llvm::Type* wide = product->getType();
    Value* rounded = b_.CreateAShr(b_.CreateAdd(product, splat_const(wide, 0x4000)), 15);
    Value* clamped = b_.CreateBinaryIntrinsic(
        I::smax, b_.CreateBinaryIntrinsic(I::smin, rounded, splat_const(wide, 0x7FFF)), splat_signed(wide, -0x8000));
    return b_.CreateTrunc(clamped, i16x8());
  }
  // relaxed_dot_i8x16_i7x16_s, deterministic: both operands signed, the pair
  // sums saturated to i16.
  Value* relaxed_dot(Value* a, Value* c) {
    Value* product = b_.CreateMul(widen(a, true), widen(c, true));  // <16 x i16>, no overflow
    return b_.CreateBinaryIntrinsic(I::sadd_sat, every_other(product, 0), every_other(product, 1));
  }

  // Float lanes: the scalar instructions' rules.
  void float_arith(llvm::Type* t, llvm::Instruction::BinaryOps op) {
    binary(t, [&](Value* a, Value* c) { return arith(op, a, c); });
  }
  Value* arith(llvm::Instruction::BinaryOps op, Value* a, Value* c) {
    Value* r = b_.CreateBinOp(op, a, c);
    if (!rules_.exact()) {
      llvm::FastMathFlags flags;
      flags.setAllowContract(true);
      llvm::cast<llvm::Instruction>(r)->setFastMathFlags(flags);
    }
    return rules_.nan_fix(r, a, c);
  }
  void float_unary_intrinsic(llvm::Type* t, llvm::Intrinsic::ID id) {
    unary(t, [&](Value* a) { return rules_.nan_fix(b_.CreateUnaryIntrinsic(id, a), a, nullptr); });
  }
  // abs clears and neg flips the sign bits.
  Value* sign_bits(Value* a, bool clear) {
    Value* raw = rules_.bits(a);
    llvm::Type* type = raw->getType();
    Value* sign = llvm::ConstantInt::get(type, llvm::APInt::getSignMask(type->getScalarSizeInBits()));
    Value* out = clear ? b_.CreateAnd(raw, b_.CreateNot(sign)) : b_.CreateXor(raw, sign);
    return b_.CreateBitCast(out, a->getType());
  }
  // pmin: b < a ? b : a; pmax: a < b ? b : a (an operand as it is, NaN or not).
  void pseudo_min_max(llvm::Type* t, bool is_min) {
    binary(t, [&](Value* a, Value* c) {
      return is_min ? b_.CreateSelect(b_.CreateFCmpOLT(c, a), c, a) : b_.CreateSelect(b_.CreateFCmpOLT(a, c), c, a);
    });
  }
  // (a * b) + c or (-a * b) + c, two roundings (relaxed madd's deterministic result).
  void madd(llvm::Type* t, bool negate) {
    Value* c = pop_as(t);
    Value* m = pop_as(t);
    Value* a = pop_as(t);
    if (negate) a = sign_bits(a, false);
    push_v(arith(llvm::Instruction::FAdd, arith(llvm::Instruction::FMul, a, m), c));
  }
  // Saturating float -> i32 lanes; the f64x2 forms give two lanes and zeros.
  void trunc_sat(llvm::Type* from, bool is_signed) {
    unary(from, [&](Value* a) -> Value* {
      llvm::Type* result = ints(32, lanes(from));
      Value* r = b_.CreateIntrinsic(is_signed ? I::fptosi_sat : I::fptoui_sat, {result, from}, {a});
      if (lanes(from) == 4) return r;
      return b_.CreateShuffleVector(r, llvm::Constant::getNullValue(result), {0, 1, 2, 3});
    });
  }

  // Memory: the effective address and its translation.
  Value* address(const wasm::Instr& instr, uint32_t width) {
    Value* ea = b_.CreateAdd(b_.CreateZExt(host_.pop(), b_.getInt64Ty()), b_.getInt64(instr.imm1));
    return host_.translate(ea, width);
  }
  Value* load(llvm::Type* t, Value* host) { return b_.CreateAlignedLoad(t, host, llvm::MaybeAlign(1)); }
  // v128.loadNxM_s/u: M lanes of N bits, widened.
  void load_extend(const wasm::Instr& instr, unsigned bits, bool is_signed) {
    Value* host = address(instr, 8);
    push_v(widen(load(ints(bits, 64 / bits), host), is_signed));
  }
  void load_splat(const wasm::Instr& instr, unsigned bits) {
    Value* host = address(instr, bits / 8);
    push_v(b_.CreateVectorSplat(128 / bits, load(b_.getIntNTy(bits), host)));
  }
  void load_zero(const wasm::Instr& instr, unsigned bits) {
    Value* host = address(instr, bits / 8);
    llvm::Type* t = ints(bits, 128 / bits);
    push_v(b_.CreateInsertElement(llvm::Constant::getNullValue(t), load(b_.getIntNTy(bits), host), b_.getInt32(0)));
  }
  void load_lane(const wasm::Instr& instr, unsigned bits) {
    llvm::Type* t = ints(bits, 128 / bits);
    Value* v = pop_as(t);
    Value* host = address(instr, bits / 8);
    push_v(b_.CreateInsertElement(v, load(b_.getIntNTy(bits), host), b_.getInt32(uint32_t(instr.imm64))));
  }
  void store_lane(const wasm::Instr& instr, unsigned bits) {
    llvm::Type* t = ints(bits, 128 / bits);
    Value* v = pop_as(t);
    Value* host = address(instr, bits / 8);
    b_.CreateAlignedStore(b_.CreateExtractElement(v, b_.getInt32(uint32_t(instr.imm64))), host, llvm::MaybeAlign(1));
  }

  llvm::IRBuilder<>& b_;
  FloatRules rules_;
  SimdHost& host_;
};

bool SimdLowering::lower(const wasm::Instr& instr) {
  using P = llvm::CmpInst::Predicate;
  using B = llvm::Instruction::BinaryOps;
  using wasm::Extend;
  const uint32_t lane = instr.imm0;
  switch (instr.op) {
    // Memory.
    case Opcode::V128Load: {
      Value* host = address(instr, 16);
      push_v(load(v128_type(b_.getContext()), host));
      return true;
    }
    case Opcode::V128Store: {
      Value* v = host_.pop();
      Value* host = address(instr, 16);
      b_.CreateAlignedStore(v, host, llvm::MaybeAlign(1));
      return true;
    }
    case Opcode::V128Load8x8S: load_extend(instr, 8, true); return true;
    case Opcode::V128Load8x8U: load_extend(instr, 8, false); return true;
    case Opcode::V128Load16x4S: load_extend(instr, 16, true); return true;
    case Opcode::V128Load16x4U: load_extend(instr, 16, false); return true;
    case Opcode::V128Load32x2S: load_extend(instr, 32, true); return true;
    case Opcode::V128Load32x2U: load_extend(instr, 32, false); return true;
    case Opcode::V128Load8Splat: load_splat(instr, 8); return true;
    case Opcode::V128Load16Splat: load_splat(instr, 16); return true;
    case Opcode::V128Load32Splat: load_splat(instr, 32); return true;
    case Opcode::V128Load64Splat: load_splat(instr, 64); return true;
    case Opcode::V128Load32Zero: load_zero(instr, 32); return true;
    case Opcode::V128Load64Zero: load_zero(instr, 64); return true;
    case Opcode::V128Load8Lane: load_lane(instr, 8); return true;
    case Opcode::V128Load16Lane: load_lane(instr, 16); return true;
    case Opcode::V128Load32Lane: load_lane(instr, 32); return true;
    case Opcode::V128Load64Lane: load_lane(instr, 64); return true;
    case Opcode::V128Store8Lane: store_lane(instr, 8); return true;
    case Opcode::V128Store16Lane: store_lane(instr, 16); return true;
    case Opcode::V128Store32Lane: store_lane(instr, 32); return true;
    case Opcode::V128Store64Lane: store_lane(instr, 64); return true;
    // Constants, shuffles, lanes.
    case Opcode::V128Const:
      host_.push(llvm::ConstantVector::get({b_.getInt64(instr.imm64), b_.getInt64(instr.imm64_hi)}));
      return true;
    case Opcode::I8x16Shuffle: {
      Value* c = pop_as(i8x16());
      Value* a = pop_as(i8x16());
      std::vector<int> mask;
      for (unsigned i = 0; i < 16; ++i)
        mask.push_back(int(((i < 8 ? instr.imm64 : instr.imm64_hi) >> (8 * (i % 8))) & 31));
      push_v(b_.CreateShuffleVector(a, c, mask));
      return true;
    }
    case Opcode::I8x16Swizzle:
    case Opcode::I8x16RelaxedSwizzle: binary(i8x16(), [&](Value* a, Value* c) { return swizzle(a, c); }); return true;
    case Opcode::I8x16Splat: splat(i8x16()); return true;
    case Opcode::I16x8Splat: splat(i16x8()); return true;
    case Opcode::I32x4Splat: splat(i32x4()); return true;
    case Opcode::I64x2Splat: splat(i64x2()); return true;
    case Opcode::F32x4Splat: splat(f32x4()); return true;
    case Opcode::F64x2Splat: splat(f64x2()); return true;
    case Opcode::I8x16ExtractLaneS: extract(i8x16(), lane, Extend::Sign); return true;
    case Opcode::I8x16ExtractLaneU: extract(i8x16(), lane, Extend::Zero); return true;
    case Opcode::I16x8ExtractLaneS: extract(i16x8(), lane, Extend::Sign); return true;
    case Opcode::I16x8ExtractLaneU: extract(i16x8(), lane, Extend::Zero); return true;
    case Opcode::I32x4ExtractLane: extract(i32x4(), lane); return true;
    case Opcode::I64x2ExtractLane: extract(i64x2(), lane); return true;
    case Opcode::F32x4ExtractLane: extract(f32x4(), lane); return true;
    case Opcode::F64x2ExtractLane: extract(f64x2(), lane); return true;
    case Opcode::I8x16ReplaceLane: replace(i8x16(), lane); return true;
    case Opcode::I16x8ReplaceLane: replace(i16x8(), lane); return true;
    case Opcode::I32x4ReplaceLane: replace(i32x4(), lane); return true;
    case Opcode::I64x2ReplaceLane: replace(i64x2(), lane); return true;
    case Opcode::F32x4ReplaceLane: replace(f32x4(), lane); return true;
    case Opcode::F64x2ReplaceLane: replace(f64x2(), lane); return true;
    // Integer comparisons.
    case Opcode::I8x16Eq: compare(i8x16(), P::ICMP_EQ); return true;
    case Opcode::I8x16Ne: compare(i8x16(), P::ICMP_NE); return true;
    case Opcode::I8x16LtS: compare(i8x16(), P::ICMP_SLT); return true;
    case Opcode::I8x16LtU: compare(i8x16(), P::ICMP_ULT); return true;
    case Opcode::I8x16GtS: compare(i8x16(), P::ICMP_SGT); return true;
    case Opcode::I8x16GtU: compare(i8x16(), P::ICMP_UGT); return true;
    case Opcode::I8x16LeS: compare(i8x16(), P::ICMP_SLE); return true;
    case Opcode::I8x16LeU: compare(i8x16(), P::ICMP_ULE); return true;
    case Opcode::I8x16GeS: compare(i8x16(), P::ICMP_SGE); return true;
    case Opcode::I8x16GeU: compare(i8x16(), P::ICMP_UGE); return true;
    case Opcode::I16x8Eq: compare(i16x8(), P::ICMP_EQ); return true;
    case Opcode::I16x8Ne: compare(i16x8(), P::ICMP_NE); return true;
    case Opcode::I16x8LtS: compare(i16x8(), P::ICMP_SLT); return true;
    case Opcode::I16x8LtU: compare(i16x8(), P::ICMP_ULT); return true;
    case Opcode::I16x8GtS: compare(i16x8(), P::ICMP_SGT); return true;
    case Opcode::I16x8GtU: compare(i16x8(), P::ICMP_UGT); return true;
    case Opcode::I16x8LeS: compare(i16x8(), P::ICMP_SLE); return true;
    case Opcode::I16x8LeU: compare(i16x8(), P::ICMP_ULE); return true;
    case Opcode::I16x8GeS: compare(i16x8(), P::ICMP_SGE); return true;
    case Opcode::I16x8GeU: compare(i16x8(), P::ICMP_UGE); return true;
    case Opcode::I32x4Eq: compare(i32x4(), P::ICMP_EQ); return true;
    case Opcode::I32x4Ne: compare(i32x4(), P::ICMP_NE); return true;
    case Opcode::I32x4LtS: compare(i32x4(), P::ICMP_SLT); return true;
    case Opcode::I32x4LtU: compare(i32x4(), P::ICMP_ULT); return true;
    case Opcode::I32x4GtS: compare(i32x4(), P::ICMP_SGT); return true;
    case Opcode::I32x4GtU: compare(i32x4(), P::ICMP_UGT); return true;
    case Opcode::I32x4LeS: compare(i32x4(), P::ICMP_SLE); return true;
    case Opcode::I32x4LeU: compare(i32x4(), P::ICMP_ULE); return true;
    case Opcode::I32x4GeS: compare(i32x4(), P::ICMP_SGE); return true;
    case Opcode::I32x4GeU: compare(i32x4(), P::ICMP_UGE); return true;
    case Opcode::I64x2Eq: compare(i64x2(), P::ICMP_EQ); return true;
    case Opcode::I64x2Ne: compare(i64x2(), P::ICMP_NE); return true;
    case Opcode::I64x2LtS: compare(i64x2(), P::ICMP_SLT); return true;
    case Opcode::I64x2GtS: compare(i64x2(), P::ICMP_SGT); return true;
    case Opcode::I64x2LeS: compare(i64x2(), P::ICMP_SLE); return true;
    case Opcode::I64x2GeS: compare(i64x2(), P::ICMP_SGE); return true;
    // Float comparisons: IEEE, as the scalar ones.
    case Opcode::F32x4Eq: compare(f32x4(), P::FCMP_OEQ); return true;
    case Opcode::F32x4Ne: compare(f32x4(), P::FCMP_UNE); return true;
    case Opcode::F32x4Lt: compare(f32x4(), P::FCMP_OLT); return true;
    case Opcode::F32x4Gt: compare(f32x4(), P::FCMP_OGT); return true;
    case Opcode::F32x4Le: compare(f32x4(), P::FCMP_OLE); return true;
    case Opcode::F32x4Ge: compare(f32x4(), P::FCMP_OGE); return true;
    case Opcode::F64x2Eq: compare(f64x2(), P::FCMP_OEQ); return true;
    case Opcode::F64x2Ne: compare(f64x2(), P::FCMP_UNE); return true;
    case Opcode::F64x2Lt: compare(f64x2(), P::FCMP_OLT); return true;
    case Opcode::F64x2Gt: compare(f64x2(), P::FCMP_OGT); return true;
    case Opcode::F64x2Le: compare(f64x2(), P::FCMP_OLE); return true;
    case Opcode::F64x2Ge: compare(f64x2(), P::FCMP_OGE); return true;
    // Bitwise.
    case Opcode::V128Not: unary(i64x2(), [&](Value* a) { return b_.CreateNot(a); }); return true;
    case Opcode::V128And: binary(i64x2(), [&](Value* a, Value* c) { return b_.CreateAnd(a, c); }); return true;
    case Opcode::V128Andnot:
      binary(i64x2(), [&](Value* a, Value* c) { return b_.CreateAnd(a, b_.CreateNot(c)); });
      return true;
    case Opcode::V128Or: binary(i64x2(), [&](Value* a, Value* c) { return b_.CreateOr(a, c); }); return true;
    case Opcode::V128Xor: binary(i64x2(), [&](Value* a, Value* c) { return b_.CreateXor(a, c); }); return true;
    case Opcode::V128Bitselect:
    case Opcode::I8x16RelaxedLaneselect:
    case Opcode::I16x8RelaxedLaneselect:
    case Opcode::I32x4RelaxedLaneselect:
    case Opcode::I64x2RelaxedLaneselect: {
      Value* c = pop_as(i64x2());
      Value* v2 = pop_as(i64x2());
      Value* v1 = pop_as(i64x2());
      push_v(bitselect(v1, v2, c));
      return true;
    }
    case Opcode::V128AnyTrue: {
      Value* whole = b_.CreateBitCast(host_.pop(), b_.getIntNTy(128));
      host_.push(b_.CreateZExt(b_.CreateICmpNE(whole, llvm::ConstantInt::get(whole->getType(), 0)), b_.getInt32Ty()));
      return true;
    }
    case Opcode::I8x16AllTrue: all_true(i8x16()); return true;
    case Opcode::I16x8AllTrue: all_true(i16x8()); return true;
    case Opcode::I32x4AllTrue: all_true(i32x4()); return true;
    case Opcode::I64x2AllTrue: all_true(i64x2()); return true;
    case Opcode::I8x16Bitmask: bitmask(i8x16()); return true;
    case Opcode::I16x8Bitmask: bitmask(i16x8()); return true;
    case Opcode::I32x4Bitmask: bitmask(i32x4()); return true;
    case Opcode::I64x2Bitmask: bitmask(i64x2()); return true;
    // Integer arithmetic.
    case Opcode::I8x16Abs:
    case Opcode::I16x8Abs:
    case Opcode::I32x4Abs:
    case Opcode::I64x2Abs: {
      llvm::Type* t = instr.op == Opcode::I8x16Abs   ? i8x16()
                      : instr.op == Opcode::I16x8Abs ? i16x8()
                      : instr.op == Opcode::I32x4Abs ? i32x4()
                                                     : i64x2();
      unary(t, [&](Value* a) { return b_.CreateBinaryIntrinsic(I::abs, a, b_.getFalse()); });
      return true;
    }
    case Opcode::I8x16Neg: unary(i8x16(), [&](Value* a) { return b_.CreateNeg(a); }); return true;
    case Opcode::I16x8Neg: unary(i16x8(), [&](Value* a) { return b_.CreateNeg(a); }); return true;
    case Opcode::I32x4Neg: unary(i32x4(), [&](Value* a) { return b_.CreateNeg(a); }); return true;
    case Opcode::I64x2Neg: unary(i64x2(), [&](Value* a) { return b_.CreateNeg(a); }); return true;
    case Opcode::I8x16Popcnt:
      unary(i8x16(), [&](Value* a) { return b_.CreateUnaryIntrinsic(I::ctpop, a); });
      return true;
    case Opcode::I8x16NarrowI16x8S: narrow(i16x8(), true); return true;
    case Opcode::I8x16NarrowI16x8U: narrow(i16x8(), false); return true;
    case Opcode::I16x8NarrowI32x4S: narrow(i32x4(), true); return true;
    case Opcode::I16x8NarrowI32x4U: narrow(i32x4(), false); return true;
    case Opcode::I8x16Shl: shift(i8x16(), B::Shl); return true;
    case Opcode::I8x16ShrS: shift(i8x16(), B::AShr); return true;
    case Opcode::I8x16ShrU: shift(i8x16(), B::LShr); return true;
    case Opcode::I16x8Shl: shift(i16x8(), B::Shl); return true;
    case Opcode::I16x8ShrS: shift(i16x8(), B::AShr); return true;
    case Opcode::I16x8ShrU: shift(i16x8(), B::LShr); return true;
    case Opcode::I32x4Shl: shift(i32x4(), B::Shl); return true;
    case Opcode::I32x4ShrS: shift(i32x4(), B::AShr); return true;
    case Opcode::I32x4ShrU: shift(i32x4(), B::LShr); return true;
    case Opcode::I64x2Shl: shift(i64x2(), B::Shl); return true;
    case Opcode::I64x2ShrS: shift(i64x2(), B::AShr); return true;
    case Opcode::I64x2ShrU: shift(i64x2(), B::LShr); return true;
    case Opcode::I8x16Add: binary(i8x16(), [&](Value* a, Value* c) { return b_.CreateAdd(a, c); }); return true;
    case Opcode::I16x8Add: binary(i16x8(), [&](Value* a, Value* c) { return b_.CreateAdd(a, c); }); return true;
    case Opcode::I32x4Add: binary(i32x4(), [&](Value* a, Value* c) { return b_.CreateAdd(a, c); }); return true;
    case Opcode::I64x2Add: binary(i64x2(), [&](Value* a, Value* c) { return b_.CreateAdd(a, c); }); return true;
    case Opcode::I8x16Sub: binary(i8x16(), [&](Value* a, Value* c) { return b_.CreateSub(a, c); }); return true;
    case Opcode::I16x8Sub: binary(i16x8(), [&](Value* a, Value* c) { return b_.CreateSub(a, c); }); return true;
    case Opcode::I32x4Sub: binary(i32x4(), [&](Value* a, Value* c) { return b_.CreateSub(a, c); }); return true;
    case Opcode::I64x2Sub: binary(i64x2(), [&](Value* a, Value* c) { return b_.CreateSub(a, c); }); return true;
    case Opcode::I16x8Mul: binary(i16x8(), [&](Value* a, Value* c) { return b_.CreateMul(a, c); }); return true;
    case Opcode::I32x4Mul: binary(i32x4(), [&](Value* a, Value* c) { return b_.CreateMul(a, c); }); return true;
    case Opcode::I64x2Mul: binary(i64x2(), [&](Value* a, Value* c) { return b_.CreateMul(a, c); }); return true;
    case Opcode::I8x16AddSatS: intrinsic2(i8x16(), I::sadd_sat); return true;
    case Opcode::I8x16AddSatU: intrinsic2(i8x16(), I::uadd_sat); return true;
    case Opcode::I8x16SubSatS: intrinsic2(i8x16(), I::ssub_sat); return true;
    case Opcode::I8x16SubSatU: intrinsic2(i8x16(), I::usub_sat); return true;
    case Opcode::I16x8AddSatS: intrinsic2(i16x8(), I::sadd_sat); return true;
    case Opcode::I16x8AddSatU: intrinsic2(i16x8(), I::uadd_sat); return true;
    case Opcode::I16x8SubSatS: intrinsic2(i16x8(), I::ssub_sat); return true;
    case Opcode::I16x8SubSatU: intrinsic2(i16x8(), I::usub_sat); return true;
    case Opcode::I8x16MinS: intrinsic2(i8x16(), I::smin); return true;
    case Opcode::I8x16MinU: intrinsic2(i8x16(), I::umin); return true;
    case Opcode::I8x16MaxS: intrinsic2(i8x16(), I::smax); return true;
    case Opcode::I8x16MaxU: intrinsic2(i8x16(), I::umax); return true;
    case Opcode::I16x8MinS: intrinsic2(i16x8(), I::smin); return true;
    case Opcode::I16x8MinU: intrinsic2(i16x8(), I::umin); return true;
    case Opcode::I16x8MaxS: intrinsic2(i16x8(), I::smax); return true;
    case Opcode::I16x8MaxU: intrinsic2(i16x8(), I::umax); return true;
    case Opcode::I32x4MinS: intrinsic2(i32x4(), I::smin); return true;
    case Opcode::I32x4MinU: intrinsic2(i32x4(), I::umin); return true;
    case Opcode::I32x4MaxS: intrinsic2(i32x4(), I::smax); return true;
    case Opcode::I32x4MaxU: intrinsic2(i32x4(), I::umax); return true;
    case Opcode::I8x16AvgrU: avgr(i8x16()); return true;
    case Opcode::I16x8AvgrU: avgr(i16x8()); return true;
    case Opcode::I16x8Q15mulrSatS:
    case Opcode::I16x8RelaxedQ15mulrS: binary(i16x8(), [&](Value* a, Value* c) { return q15mulr(a, c); }); return true;
    case Opcode::I16x8ExtaddPairwiseI8x16S: extadd_pairwise(i8x16(), true); return true;
    case Opcode::I16x8ExtaddPairwiseI8x16U: extadd_pairwise(i8x16(), false); return true;
    case Opcode::I32x4ExtaddPairwiseI16x8S: extadd_pairwise(i16x8(), true); return true;
    case Opcode::I32x4ExtaddPairwiseI16x8U: extadd_pairwise(i16x8(), false); return true;
    case Opcode::I16x8ExtendLowI8x16S: extend(i8x16(), false, true); return true;
    case Opcode::I16x8ExtendHighI8x16S: extend(i8x16(), true, true); return true;
    case Opcode::I16x8ExtendLowI8x16U: extend(i8x16(), false, false); return true;
    case Opcode::I16x8ExtendHighI8x16U: extend(i8x16(), true, false); return true;
    case Opcode::I32x4ExtendLowI16x8S: extend(i16x8(), false, true); return true;
    case Opcode::I32x4ExtendHighI16x8S: extend(i16x8(), true, true); return true;
    case Opcode::I32x4ExtendLowI16x8U: extend(i16x8(), false, false); return true;
    case Opcode::I32x4ExtendHighI16x8U: extend(i16x8(), true, false); return true;
    case Opcode::I64x2ExtendLowI32x4S: extend(i32x4(), false, true); return true;
    case Opcode::I64x2ExtendHighI32x4S: extend(i32x4(), true, true); return true;
    case Opcode::I64x2ExtendLowI32x4U: extend(i32x4(), false, false); return true;
    case Opcode::I64x2ExtendHighI32x4U: extend(i32x4(), true, false); return true;
    case Opcode::I16x8ExtmulLowI8x16S: extmul(i8x16(), false, true); return true;
    case Opcode::I16x8ExtmulHighI8x16S: extmul(i8x16(), true, true); return true;
    case Opcode::I16x8ExtmulLowI8x16U: extmul(i8x16(), false, false); return true;
    case Opcode::I16x8ExtmulHighI8x16U: extmul(i8x16(), true, false); return true;
    case Opcode::I32x4ExtmulLowI16x8S: extmul(i16x8(), false, true); return true;
    case Opcode::I32x4ExtmulHighI16x8S: extmul(i16x8(), true, true); return true;
    case Opcode::I32x4ExtmulLowI16x8U: extmul(i16x8(), false, false); return true;
    case Opcode::I32x4ExtmulHighI16x8U: extmul(i16x8(), true, false); return true;
    case Opcode::I64x2ExtmulLowI32x4S: extmul(i32x4(), false, true); return true;
    case Opcode::I64x2ExtmulHighI32x4S: extmul(i32x4(), true, true); return true;
    case Opcode::I64x2ExtmulLowI32x4U: extmul(i32x4(), false, false); return true;
    case Opcode::I64x2ExtmulHighI32x4U: extmul(i32x4(), true, false); return true;
    case Opcode::I32x4DotI16x8S:
      binary(i16x8(), [&](Value* a, Value* c) {
        Value* product = b_.CreateMul(widen(a, true), widen(c, true));
        return b_.CreateAdd(every_other(product, 0), every_other(product, 1));
      });
      return true;
    case Opcode::I16x8RelaxedDotI8x16I7x16S:
      binary(i8x16(), [&](Value* a, Value* c) { return relaxed_dot(a, c); });
      return true;
    case Opcode::I32x4RelaxedDotI8x16I7x16AddS: {
      Value* addend = pop_as(i32x4());
      Value* c = pop_as(i8x16());
      Value* a = pop_as(i8x16());
      Value* sums = widen(relaxed_dot(a, c), true);  // <8 x i32>
      push_v(b_.CreateAdd(b_.CreateAdd(every_other(sums, 0), every_other(sums, 1)), addend));
      return true;
    }
    // Float lanes.
    case Opcode::F32x4Abs: unary(f32x4(), [&](Value* a) { return sign_bits(a, true); }); return true;
    case Opcode::F64x2Abs: unary(f64x2(), [&](Value* a) { return sign_bits(a, true); }); return true;
    case Opcode::F32x4Neg: unary(f32x4(), [&](Value* a) { return sign_bits(a, false); }); return true;
    case Opcode::F64x2Neg: unary(f64x2(), [&](Value* a) { return sign_bits(a, false); }); return true;
    case Opcode::F32x4Sqrt: float_unary_intrinsic(f32x4(), I::sqrt); return true;
    case Opcode::F64x2Sqrt: float_unary_intrinsic(f64x2(), I::sqrt); return true;
    case Opcode::F32x4Ceil: float_unary_intrinsic(f32x4(), I::ceil); return true;
    case Opcode::F64x2Ceil: float_unary_intrinsic(f64x2(), I::ceil); return true;
    case Opcode::F32x4Floor: float_unary_intrinsic(f32x4(), I::floor); return true;
    case Opcode::F64x2Floor: float_unary_intrinsic(f64x2(), I::floor); return true;
    case Opcode::F32x4Trunc: float_unary_intrinsic(f32x4(), I::trunc); return true;
    case Opcode::F64x2Trunc: float_unary_intrinsic(f64x2(), I::trunc); return true;
    case Opcode::F32x4Nearest: float_unary_intrinsic(f32x4(), I::roundeven); return true;
    case Opcode::F64x2Nearest: float_unary_intrinsic(f64x2(), I::roundeven); return true;
    case Opcode::F32x4Add: float_arith(f32x4(), B::FAdd); return true;
    case Opcode::F64x2Add: float_arith(f64x2(), B::FAdd); return true;
    case Opcode::F32x4Sub: float_arith(f32x4(), B::FSub); return true;
    case Opcode::F64x2Sub: float_arith(f64x2(), B::FSub); return true;
    case Opcode::F32x4Mul: float_arith(f32x4(), B::FMul); return true;
    case Opcode::F64x2Mul: float_arith(f64x2(), B::FMul); return true;
    case Opcode::F32x4Div: float_arith(f32x4(), B::FDiv); return true;
    case Opcode::F64x2Div: float_arith(f64x2(), B::FDiv); return true;
    case Opcode::F32x4Min:
    case Opcode::F32x4RelaxedMin:
      binary(f32x4(), [&](Value* a, Value* c) { return rules_.min_max(a, c, true); });
      return true;
    case Opcode::F64x2Min:
    case Opcode::F64x2RelaxedMin:
      binary(f64x2(), [&](Value* a, Value* c) { return rules_.min_max(a, c, true); });
      return true;
    case Opcode::F32x4Max:
    case Opcode::F32x4RelaxedMax:
      binary(f32x4(), [&](Value* a, Value* c) { return rules_.min_max(a, c, false); });
      return true;
    case Opcode::F64x2Max:
    case Opcode::F64x2RelaxedMax:
      binary(f64x2(), [&](Value* a, Value* c) { return rules_.min_max(a, c, false); });
      return true;
    case Opcode::F32x4Pmin: pseudo_min_max(f32x4(), true); return true;
    case Opcode::F64x2Pmin: pseudo_min_max(f64x2(), true); return true;
    case Opcode::F32x4Pmax: pseudo_min_max(f32x4(), false); return true;
    case Opcode::F64x2Pmax: pseudo_min_max(f64x2(), false); return true;
    case Opcode::F32x4RelaxedMadd: madd(f32x4(), false); return true;
    case Opcode::F32x4RelaxedNmadd: madd(f32x4(), true); return true;
    case Opcode::F64x2RelaxedMadd: madd(f64x2(), false); return true;
    case Opcode::F64x2RelaxedNmadd: madd(f64x2(), true); return true;
    // Conversions.
    case Opcode::F32x4DemoteF64x2Zero:
      unary(f64x2(), [&](Value* a) {
        Value* r = rules_.convert_nan(b_.CreateFPTrunc(a, llvm::FixedVectorType::get(b_.getFloatTy(), 2)), a);
        return b_.CreateShuffleVector(r, llvm::Constant::getNullValue(r->getType()), {0, 1, 2, 3});
      });
      return true;
    case Opcode::F64x2PromoteLowF32x4:
      unary(f32x4(), [&](Value* a) {
        Value* low = slice(a, 0, 2);
        return rules_.convert_nan(b_.CreateFPExt(low, f64x2()), low);
      });
      return true;
    case Opcode::F32x4ConvertI32x4S: unary(i32x4(), [&](Value* a) { return b_.CreateSIToFP(a, f32x4()); }); return true;
    case Opcode::F32x4ConvertI32x4U: unary(i32x4(), [&](Value* a) { return b_.CreateUIToFP(a, f32x4()); }); return true;
    case Opcode::F64x2ConvertLowI32x4S:
      unary(i32x4(), [&](Value* a) { return b_.CreateSIToFP(slice(a, 0, 2), f64x2()); });
      return true;
    case Opcode::F64x2ConvertLowI32x4U:
      unary(i32x4(), [&](Value* a) { return b_.CreateUIToFP(slice(a, 0, 2), f64x2()); });
      return true;
    case Opcode::I32x4TruncSatF32x4S:
    case Opcode::I32x4RelaxedTruncF32x4S: trunc_sat(f32x4(), true); return true;
    case Opcode::I32x4TruncSatF32x4U:
    case Opcode::I32x4RelaxedTruncF32x4U: trunc_sat(f32x4(), false); return true;
    case Opcode::I32x4TruncSatF64x2SZero:
    case Opcode::I32x4RelaxedTruncF64x2SZero: trunc_sat(f64x2(), true); return true;
    case Opcode::I32x4TruncSatF64x2UZero:
    case Opcode::I32x4RelaxedTruncF64x2UZero: trunc_sat(f64x2(), false); return true;
    default: return false;
  }
}

}  // namespace

bool lower_simd(llvm::IRBuilder<>& b, FloatRules rules, SimdHost& host, const wasm::Instr& instr) {
  return SimdLowering(b, rules, host).lower(instr);
}

}  // namespace wasmgpu::cpu
