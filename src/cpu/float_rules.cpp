#include "cpu/float_rules.h"

namespace wasmgpu::cpu {

namespace {

// `value` in every lane of `type` (an integer type or a vector of one).
llvm::Constant* constant(llvm::Type* type, uint64_t value) { return llvm::ConstantInt::get(type, value); }

}  // namespace

llvm::Value* FloatRules::bits(llvm::Value* v) {
  llvm::Type* type = v->getType();
  return b_.CreateBitCast(v, type->getWithNewType(b_.getIntNTy(type->getScalarSizeInBits())));
}

llvm::Value* FloatRules::nan_fix(llvm::Value* result, llvm::Value* a, llvm::Value* b) {
  if (!exact_) return result;
  llvm::Type* type = result->getType();
  const bool single = type->getScalarType()->isFloatTy();
  llvm::Type* raw = type->getWithNewType(b_.getIntNTy(single ? 32 : 64));
  llvm::Value* quiet = constant(raw, single ? 0x0040'0000u : uint64_t(1) << 51);
  llvm::Value* canonical = constant(raw, single ? 0x7FC0'0000u : 0x7FF8'0000'0000'0000ull);
  llvm::Value* out = canonical;
  if (b) out = b_.CreateSelect(b_.CreateFCmpUNO(b, b), b_.CreateOr(bits(b), quiet), out);
  out = b_.CreateSelect(b_.CreateFCmpUNO(a, a), b_.CreateOr(bits(a), quiet), out);
  return b_.CreateSelect(b_.CreateFCmpUNO(result, result), b_.CreateBitCast(out, type), result);
}

llvm::Value* FloatRules::min_max(llvm::Value* a, llvm::Value* b, bool is_min) {
  llvm::Type* type = a->getType();
  const unsigned width = type->getScalarSizeInBits();
  auto key = [&](llvm::Value* v) {
    llvm::Value* raw = bits(v);
    llvm::Value* negative = b_.CreateICmpSLT(raw, llvm::ConstantInt::get(raw->getType(), 0));
    llvm::Value* sign = llvm::ConstantInt::get(raw->getType(), llvm::APInt::getSignMask(width));
    return b_.CreateSelect(negative, b_.CreateNot(raw), b_.CreateOr(raw, sign));
  };
  llvm::Value* a_first = is_min ? b_.CreateICmpULT(key(a), key(b)) : b_.CreateICmpUGT(key(a), key(b));
  llvm::Value* result = b_.CreateSelect(a_first, a, b);
  llvm::Value* any_nan = b_.CreateFCmpUNO(a, b);
  llvm::Value* quiet_nan = nan_fix(llvm::ConstantFP::getNaN(type), a, b);
  if (!exact_) quiet_nan = b_.CreateFAdd(a, b);
  return b_.CreateSelect(any_nan, quiet_nan, result);
}

llvm::Value* FloatRules::convert_nan(llvm::Value* result, llvm::Value* operand) {
  if (!exact_) return result;
  llvm::Value* raw = bits(operand);
  llvm::Type* type = result->getType();
  llvm::Value* nan_bits = nullptr;
  if (type->getScalarType()->isDoubleTy()) {
    llvm::Type* wide_type = type->getWithNewType(b_.getInt64Ty());
    llvm::Value* wide = b_.CreateZExt(raw, wide_type);
    llvm::Value* sign = b_.CreateShl(b_.CreateLShr(wide, 31), 63);
    llvm::Value* payload = b_.CreateShl(b_.CreateAnd(wide, constant(wide_type, 0x007F'FFFF)), 29);
    nan_bits = b_.CreateOr(b_.CreateOr(sign, payload), constant(wide_type, 0x7FF8'0000'0000'0000ull));
  } else {
    llvm::Type* narrow_type = type->getWithNewType(b_.getInt32Ty());
    llvm::Value* sign = b_.CreateShl(b_.CreateTrunc(b_.CreateLShr(raw, 63), narrow_type), 31);
    llvm::Value* payload = b_.CreateTrunc(
        b_.CreateLShr(b_.CreateAnd(raw, constant(raw->getType(), 0x000F'FFFF'FFFF'FFFFull)), 29), narrow_type);
    nan_bits = b_.CreateOr(b_.CreateOr(sign, payload), constant(narrow_type, 0x7FC0'0000u));
  }
  return b_.CreateSelect(b_.CreateFCmpUNO(operand, operand), b_.CreateBitCast(nan_bits, type), result);
}

}  // namespace wasmgpu::cpu
