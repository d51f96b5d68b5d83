#include "spirv/float_rounding.h"

#include <cassert>

namespace wasmgpu::spirv {

using wasm::Opcode;
using Op = spv::Op;

namespace {

enum class Rounding { Ceil, Floor, Trunc, Nearest };

Rounding rounding_of(Opcode opcode) {
  switch (opcode) {
    case Opcode::F32Ceil:
    case Opcode::F64Ceil: return Rounding::Ceil;
    case Opcode::F32Floor:
    case Opcode::F64Floor: return Rounding::Floor;
    case Opcode::F32Trunc:
    case Opcode::F64Trunc: return Rounding::Trunc;
    case Opcode::F32Nearest:
    case Opcode::F64Nearest: return Rounding::Nearest;
    default: assert(false); return Rounding::Trunc;
  }
}

bool is_f64(Opcode opcode) {
  return opcode == Opcode::F64Ceil || opcode == Opcode::F64Floor || opcode == Opcode::F64Trunc ||
         opcode == Opcode::F64Nearest;
}

}  // namespace

// With E the biased exponent, `mant` stored significand bits and `bias`:
//  - E >= bias + mant: the value is an integer, an infinity or a NaN;
//  - E < bias: |x| < 1, so the result is ±0 or ±1;
//  - otherwise the low `bias + mant - E` bits (1 to mant) are the fraction.
//    Clearing them truncates; adding one unit of the lowest integer bit to
//    the bits adds 1 to the magnitude, a carry out of the significand moving
//    into the exponent as IEEE's encoding intends (1.5 -> 1 + 1 = 2).
// Everything is done in the float's own width (u32 for f32, so f32 kernels
// need no 64-bit integers).
Id round_to_integral(KernelContext& k, FunctionBuilder& f, Opcode opcode, Id value) {
  const bool wide = is_f64(opcode);
  const Rounding rounding = rounding_of(opcode);
  const uint32_t width = wide ? 64 : 32, mant = wide ? 52 : 23, bias = wide ? 1023 : 127;
  const Id int_type = wide ? k.types.u64 : k.types.u32;
  const Id float_type = wide ? k.types.f64() : k.types.f32();
  ModuleBuilder& b = k.b;
  auto c = [&](uint64_t v) { return wide ? b.const_u64(v) : b.const_u32(uint32_t(v)); };
  auto op = [&](Op o, Id a, Id d) { return f.op(o, int_type, {a, d}); };
  auto test = [&](Op o, Id a, Id d) { return f.op(o, k.types.bool_type, {a, d}); };
  auto sel = [&](Id cond, Id a, Id d) { return f.op(Op::OpSelect, b.type_of(a), {cond, a, d}); };
  auto all = [&](Id a, Id d) { return test(Op::OpLogicalAnd, a, d); };
  auto any = [&](Id a, Id d) { return test(Op::OpLogicalOr, a, d); };

  const uint64_t sign_bit = uint64_t(1) << (width - 1);
  const uint64_t one = uint64_t(bias) << mant;       // 1.0
  const uint64_t half = uint64_t(bias - 1) << mant;  // 0.5
  const uint64_t inf = ((uint64_t(1) << (width - 1 - mant)) - 1) << mant;
  Id x = f.op(Op::OpBitcast, int_type, {value});
  Id magnitude = op(Op::OpBitwiseAnd, x, c(sign_bit - 1));
  Id signed_zero = op(Op::OpBitwiseAnd, x, c(sign_bit));
  Id negative = test(Op::OpINotEqual, signed_zero, c(0));
  Id nonzero = test(Op::OpINotEqual, magnitude, c(0));
  // The biased exponent as the integer type: compared, never shifted by.
  Id exponent = op(Op::OpShiftRightLogical, magnitude, b.const_u32(mant));

  // |x| < 1.
  Id small_result = signed_zero;
  switch (rounding) {
    case Rounding::Ceil: {
      Id one_bits = c(one);
      Id positive = f.op(Op::OpLogicalNot, k.types.bool_type, {negative});
      small_result = sel(all(nonzero, positive), one_bits, signed_zero);
      break;
    }
    case Rounding::Floor: {
      Id minus_one_bits = c(one | sign_bit);
      small_result = sel(all(nonzero, negative), minus_one_bits, signed_zero);
      break;
    }
    case Rounding::Trunc: break;
    case Rounding::Nearest: {
      Id signed_one = op(Op::OpBitwiseOr, signed_zero, c(one));
      Id above_half = test(Op::OpUGreaterThan, magnitude, c(half));
      small_result = sel(above_half, signed_one, signed_zero);
      break;
    }
  }

  // 1 <= |x| < 2^mant: `fraction_bits` in 1..mant (1 outside, to keep the
  // shift defined; that lane's result is not selected).
  Id is_small = test(Op::OpULessThan, exponent, c(bias));
  Id is_integral = test(Op::OpUGreaterThanEqual, exponent, c(bias + mant));
  Id fraction_bits = op(Op::OpISub, c(bias + mant), exponent);
  Id one_bit = c(1);
  fraction_bits = sel(any(is_small, is_integral), one_bit, fraction_bits);
  Id unit = op(Op::OpShiftLeftLogical, c(1), fraction_bits);
  Id mask = op(Op::OpISub, unit, c(1));
  Id fraction = op(Op::OpBitwiseAnd, x, mask);
  Id truncated = op(Op::OpBitwiseAnd, x, f.op(Op::OpNot, int_type, {mask}));
  Id has_fraction = test(Op::OpINotEqual, fraction, c(0));
  Id up;  // add one to the truncated magnitude
  switch (rounding) {
    case Rounding::Ceil: up = all(has_fraction, f.op(Op::OpLogicalNot, k.types.bool_type, {negative})); break;
    case Rounding::Floor: up = all(has_fraction, negative); break;
    case Rounding::Trunc: break;
    case Rounding::Nearest: {
      Id halfway = op(Op::OpShiftRightLogical, unit, c(1));
      Id zero = c(0);
      Id odd = test(Op::OpINotEqual, op(Op::OpBitwiseAnd, truncated, unit), zero);
      Id tie_to_even = all(test(Op::OpIEqual, fraction, halfway), odd);
      up = any(test(Op::OpUGreaterThan, fraction, halfway), tie_to_even);
      break;
    }
  }
  Id middle_result = up ? sel(up, op(Op::OpIAdd, truncated, unit), truncated) : truncated;

  Id result = sel(is_small, small_result, sel(is_integral, x, middle_result));
  // A NaN gives itself, quieted (integral lane above: x).
  Id is_nan = test(Op::OpUGreaterThan, magnitude, c(inf));
  uint64_t quiet = uint64_t(1) << (mant - 1);
  result = sel(is_nan, op(Op::OpBitwiseOr, x, c(quiet)), result);
  return f.op(Op::OpBitcast, float_type, {result});
}

}  // namespace wasmgpu::spirv
