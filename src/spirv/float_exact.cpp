// Exact float mode: see float_exact.h for the reasoning and
// docs/float-modes.md for the costs. Integer work uses u64 for both widths;
// signed quantities (exponents) are u32 values read by the S-opcodes.
#include "spirv/float_exact.h"

#include "spirv/float_rounding.h"

#include <cassert>

#include <spirv/unified1/GLSL.std.450.h>

namespace wasmgpu::spirv {

using wasm::Opcode;
using Op = spv::Op;

struct ExactFloat::Format {
  uint32_t width;    // 32 or 64
  uint32_t mant;     // stored significand bits
  uint32_t max_exp;  // all-ones biased exponent
  int32_t bias;
  uint64_t sign() const { return uint64_t(1) << (width - 1); }
  uint64_t inf() const { return uint64_t(max_exp) << mant; }
  uint64_t quiet() const { return uint64_t(1) << (mant - 1); }
  uint64_t canonical_nan() const { return inf() | quiet(); }
};

namespace {

constexpr ExactFloat::Format kF32{32, 23, 255, 127};
constexpr ExactFloat::Format kF64{64, 52, 2047, 1023};

// Small emitter over a FunctionBuilder: the integer vocabulary of this file.
struct Emit {
  KernelContext& k;
  FunctionBuilder& f;
  ModuleBuilder& b = k.b;

  Id u64(uint64_t v) { return b.const_u64(v); }
  Id u32(uint32_t v) { return b.const_u32(v); }
  Id op(Op o, Id type, std::initializer_list<Operand> args) { return f.op(o, type, args); }
  Id op64(Op o, Id a, Id c) { return op(o, k.types.u64, {a, c}); }
  Id op32(Op o, Id a, Id c) { return op(o, k.types.u32, {a, c}); }
  Id test(Op o, Id a, Id c) { return op(o, k.types.bool_type, {a, c}); }
  Id sel(Id cond, Id a, Id c) { return op(Op::OpSelect, b.type_of(a), {cond, a, c}); }
  Id any(Id a, Id c) { return test(Op::OpLogicalOr, a, c); }
  Id all(Id a, Id c) { return test(Op::OpLogicalAnd, a, c); }
  Id no(Id a) { return op(Op::OpLogicalNot, k.types.bool_type, {a}); }
  Id to64(Id v) { return op(Op::OpUConvert, k.types.u64, {v}); }
  Id to32(Id v) { return op(Op::OpUConvert, k.types.u32, {v}); }
  Id shl(Id v, Id n) { return op(Op::OpShiftLeftLogical, b.type_of(v), {v, n}); }
  Id shr(Id v, Id n) { return op(Op::OpShiftRightLogical, b.type_of(v), {v, n}); }
  Id and64(Id v, uint64_t mask) { return op64(Op::OpBitwiseAnd, v, u64(mask)); }
  Id bool64(Id cond) {
    Id zero = u64(0), one = u64(1);
    return sel(cond, one, zero);
  }
  Id bool32(Id cond) {
    Id zero = u32(0), one = u32(1);
    return sel(cond, one, zero);
  }
  // Index of the highest set bit of a nonzero u64 (u32).
  Id msb64(Id v) {
    Id thirty_two = u32(32);
    Id high = to32(shr(v, thirty_two)), low = to32(v);
    Id high_msb = op32(Op::OpIAdd, f.glsl(GLSLstd450FindUMsb, k.types.u32, {high}), thirty_two);
    Id low_msb = f.glsl(GLSLstd450FindUMsb, k.types.u32, {low});
    Id high_set = test(Op::OpINotEqual, high, u32(0));
    return sel(high_set, high_msb, low_msb);
  }
};

// The fields of a float's bits (as u64): sign (0/1), biased exponent (u32),
// stored significand (u64), and |x| bits.
struct Fields {
  Id sign, exp, mant, magnitude;
};

Fields fields(Emit& e, const ExactFloat::Format& fmt, Id bits) {
  Fields r;
  r.sign = e.shr(bits, e.u32(fmt.width - 1));
  r.magnitude = e.and64(bits, fmt.sign() - 1);
  r.exp = e.to32(e.shr(r.magnitude, e.u32(fmt.mant)));
  r.mant = e.and64(bits, (uint64_t(1) << fmt.mant) - 1);
  return r;
}

// Significand with its leading bit at `fmt.mant` and the exponent of that
// bit (u32, signed), for a finite nonzero value (subnormals normalised).
std::pair<Id, Id> normalize(Emit& e, const ExactFloat::Format& fmt, const Fields& x) {
  Id subnormal = e.test(Op::OpIEqual, x.exp, e.u32(0));
  Id msb = e.msb64(x.mant);
  Id shift = e.op32(Op::OpISub, e.u32(fmt.mant), msb);
  Id normal_sig = e.op64(Op::OpBitwiseOr, x.mant, e.u64(uint64_t(1) << fmt.mant));
  Id sig = e.sel(subnormal, e.shl(x.mant, shift), normal_sig);
  Id normal_exp = e.op32(Op::OpISub, x.exp, e.u32(uint32_t(fmt.bias)));
  Id exp = e.sel(subnormal, e.op32(Op::OpISub, e.u32(uint32_t(1 - fmt.bias)), shift), normal_exp);
  return {sig, exp};
}

// Rounds sign * sig * 2^(exp - lead) (+ a sticky fraction below sig's last
// bit when `sticky`) to nearest even in `fmt`, subnormals and overflow
// included. sig < 2^(lead + 1), lead > fmt.mant, lead < 62. Returns u64 bits.
Id round_pack(Emit& e, const ExactFloat::Format& fmt, Id sign, Id exp, Id sig, uint32_t lead, Id sticky) {
  Id biased = e.op32(Op::OpIAdd, exp, e.u32(uint32_t(fmt.bias)));
  Id normal = e.test(Op::OpSGreaterThanEqual, biased, e.u32(1));
  uint32_t base_shift = lead - fmt.mant;
  Id sub_shift = e.op32(Op::OpISub, e.u32(base_shift + 1), biased);
  Id max_shift = e.u32(63);
  sub_shift = e.sel(e.test(Op::OpSGreaterThan, sub_shift, max_shift), max_shift, sub_shift);
  Id shift = e.sel(normal, e.u32(base_shift), sub_shift);
  Id unit = e.shl(e.u64(1), shift);
  Id half = e.shr(unit, e.u32(1));
  Id q = e.shr(sig, shift);
  Id rest = e.op64(Op::OpBitwiseAnd, sig, e.op64(Op::OpISub, unit, e.u64(1)));
  Id zero = e.u64(0);
  Id odd = e.test(Op::OpINotEqual, e.and64(q, 1), zero);
  Id sticky_or_odd = e.any(sticky, odd);
  Id tie_up = e.all(e.test(Op::OpIEqual, rest, half), sticky_or_odd);
  Id up = e.any(e.test(Op::OpUGreaterThan, rest, half), tie_up);
  q = e.op64(Op::OpIAdd, q, e.bool64(up));
  // A normal result: (biased - 1) << mant plus q, whose leading bit adds the
  // last 1 to the exponent (and a rounding carry moves into it, up to inf).
  Id mant_bits = e.u32(fmt.mant);
  Id exp_part = e.shl(e.to64(e.op32(Op::OpISub, biased, e.u32(1))), mant_bits);
  Id magnitude = e.sel(normal, e.op64(Op::OpIAdd, exp_part, q), q);
  Id overflow = e.test(Op::OpSGreaterThanEqual, biased, e.u32(fmt.max_exp));
  magnitude = e.sel(overflow, e.u64(fmt.inf()), magnitude);
  return e.op64(Op::OpBitwiseOr, magnitude, e.shl(sign, e.u32(fmt.width - 1)));
}

Id is_nan(Emit& e, const ExactFloat::Format& fmt, const Fields& x) {
  return e.test(Op::OpUGreaterThan, x.magnitude, e.u64(fmt.inf()));
}

// wasm's NaN result: the first NaN operand, quieted, else the canonical NaN.
Id nan_result(Emit& e, const ExactFloat::Format& fmt, Id a, Id a_nan, Id b, Id b_nan) {
  Id quiet = e.u64(fmt.quiet());
  Id canonical = e.u64(fmt.canonical_nan());
  Id b_or_canonical = e.sel(b_nan, e.op64(Op::OpBitwiseOr, b, quiet), canonical);
  return e.sel(a_nan, e.op64(Op::OpBitwiseOr, a, quiet), b_or_canonical);
}

}  // namespace

Id ExactFloat::helper(Helper which) {
  auto [it, inserted] = ids_.emplace(which, 0);
  if (inserted) it->second = k_.b.fresh_id();
  return it->second;
}

Id ExactFloat::call(FunctionBuilder& f, Helper which, std::initializer_list<Id> args) {
  bool wide = which == Helper::F64Div || which == Helper::F64Sqrt || which == Helper::F64Add ||
              which == Helper::F64Sub || which == Helper::F64Mul;
  Id function = helper(which);
  return f.call(wide ? k_.types.u64 : k_.types.u32, function, args);
}

void ExactFloat::emit_bodies() {
  for (bool more = true; more;) {
    more = false;
    for (auto [which, id] : std::map<Helper, Id>(ids_)) {
      if (emitted_[which]) continue;
      emitted_[which] = true;
      more = true;
      emit(which, id);
    }
  }
}

void ExactFloat::emit(Helper which, Id id) {
  switch (which) {
    case Helper::F32Add: return emit_f32_arith(id, Op::OpFAdd);
    case Helper::F32Sub: return emit_f32_arith(id, Op::OpFSub);
    case Helper::F32Mul: return emit_f32_arith(id, Op::OpFMul);
    case Helper::F32Div: return emit_div(id, kF32);
    case Helper::F64Div: return emit_div(id, kF64);
    case Helper::F32Sqrt: return emit_sqrt(id, kF32);
    case Helper::F64Sqrt: return emit_sqrt(id, kF64);
    case Helper::Demote: return emit_demote(id);
    case Helper::F64Add: return emit_f64_arith(id, Op::OpFAdd);
    case Helper::F64Sub: return emit_f64_arith(id, Op::OpFSub);
    case Helper::F64Mul: return emit_f64_arith(id, Op::OpFMul);
  }
}

// f32 -> f64 bits exactly, whatever the device does with f32 subnormals;
// NaNs come out quiet (wasm's promote gives an arithmetic NaN).
Id ExactFloat::promote_bits(FunctionBuilder& f, Id bits32) {
  Emit e{k_, f};
  Fields x = fields(e, kF32, e.to64(bits32));
  Id zero_exp = e.test(Op::OpIEqual, x.exp, e.u32(0));
  Id special = e.test(Op::OpIEqual, x.exp, e.u32(255));
  Id nonzero = e.test(Op::OpINotEqual, x.mant, e.u64(0));
  // Subnormal: mant * 2^-149 with its top bit p becomes exponent p - 149.
  Id p = e.msb64(x.mant);
  Id sub_exp = e.op32(Op::OpIAdd, p, e.u32(1023 - 149));
  Id sub_mant = e.and64(e.shl(x.mant, e.op32(Op::OpISub, e.u32(52), p)), (uint64_t(1) << 52) - 1);
  Id normal_exp = e.op32(Op::OpIAdd, x.exp, e.u32(1023 - 127));
  Id exp = e.sel(special, e.u32(2047), normal_exp);
  Id mant = e.shl(x.mant, e.u32(29));
  Id quieted = e.op64(Op::OpBitwiseOr, mant, e.u64(kF64.quiet()));
  mant = e.sel(e.all(special, nonzero), quieted, mant);
  exp = e.sel(zero_exp, e.sel(nonzero, sub_exp, e.u32(0)), exp);
  mant = e.sel(zero_exp, e.sel(nonzero, sub_mant, e.u64(0)), mant);
  Id fifty_two = e.u32(52);
  Id exp_bits = e.shl(e.to64(exp), fifty_two);
  Id result = e.op64(Op::OpBitwiseOr, e.shl(x.sign, e.u32(63)), exp_bits);
  return e.op64(Op::OpBitwiseOr, result, mant);
}

// f64 bits (u64) -> f32 bits (u32), rounded to nearest even. Results in
// f32's normal range (|x| >= 2^-126, finite) use the device's conversion,
// which RoundingModeRTE makes exact; the rest is done in integers.
void ExactFloat::emit_demote(Id id) {
  Id params[] = {k_.types.u64};
  FunctionBuilder f(k_.b, id, k_.types.u32, params);
  k_.b.name(id, "wasmgpu_f32_demote");
  Emit e{k_, f};
  Id bits = f.param(0);
  Fields x = fields(e, kF64, bits);
  Id below_inf = e.test(Op::OpULessThan, x.exp, e.u32(2047));
  Id in_normal_range = e.all(e.test(Op::OpUGreaterThanEqual, x.exp, e.u32(1023 - 126)), below_inf);
  f.if_else(in_normal_range, [&] {
    Id wide = f.op(Op::OpBitcast, k_.types.f64(), {bits});
    Id narrowed = f.op(Op::OpFConvert, k_.types.f32(), {wide});
    f.return_value(f.op(Op::OpBitcast, k_.types.u32, {narrowed}));
  });
  Id nan = is_nan(e, kF64, x);
  Id canonical32 = e.u64(kF32.canonical_nan());
  Id nan32 = e.op64(Op::OpBitwiseOr, e.shr(x.mant, e.u32(29)), canonical32);
  Id zero_exp = e.test(Op::OpIEqual, x.exp, e.u32(0));
  Id sig = e.sel(zero_exp, x.mant, e.op64(Op::OpBitwiseOr, x.mant, e.u64(uint64_t(1) << 52)));
  Id normal_exp = e.op32(Op::OpISub, x.exp, e.u32(1023));
  Id exp = e.sel(zero_exp, e.u32(uint32_t(-1022)), normal_exp);
  Id rounded = round_pack(e, kF32, x.sign, exp, sig, 52, k_.b.const_bool(false));
  Id result = e.sel(nan, e.op64(Op::OpBitwiseOr, nan32, e.shl(x.sign, e.u32(31))), rounded);
  f.return_value(e.to32(result));
  f.finish();
}

// Sums of two zeros, computed on the bits: drivers fold `x + 0.0` to `x` and
// `0.0 - x` to `-x` even when the shader asks for signed zeros to be kept
// (seen on lavapipe), which turns -0 + 0 into -0. IEEE: the sum of two zeros
// is -0 only when both are -0 (x - y is x + (-y)).
static Id both_zero(Emit& e, Id a, Id b, uint32_t width) {
  if (width == 64) {
    Id either = e.op64(Op::OpBitwiseOr, a, b);
    Id zero = e.u64(0);
    return e.test(Op::OpIEqual, e.op64(Op::OpBitwiseAnd, either, e.u64(~(uint64_t(1) << 63))), zero);
  }
  Id either = e.op32(Op::OpBitwiseOr, a, b);
  Id zero = e.u32(0);
  return e.test(Op::OpIEqual, e.op32(Op::OpBitwiseAnd, either, e.u32(0x7FFF'FFFFu)), zero);
}

static Id zero_sum_bits(Emit& e, Op op, Id a, Id b, uint32_t width) {
  if (width == 64) {
    Id b_signed = op == Op::OpFSub ? e.op64(Op::OpBitwiseXor, b, e.u64(uint64_t(1) << 63)) : b;
    Id sign_bit = e.u64(uint64_t(1) << 63);
    return e.op64(Op::OpBitwiseAnd, e.op64(Op::OpBitwiseAnd, a, b_signed), sign_bit);
  }
  Id b_signed = op == Op::OpFSub ? e.op32(Op::OpBitwiseXor, b, e.u32(0x8000'0000u)) : b;
  Id sign_bit = e.u32(0x8000'0000u);
  return e.op32(Op::OpBitwiseAnd, e.op32(Op::OpBitwiseAnd, a, b_signed), sign_bit);
}

// The debug name of the + - * helper of a width: wasmgpu_f32_add, ...
static std::string arith_helper_name(Op op, int width) {
  const char* what = op == Op::OpFAdd ? "add" : op == Op::OpFSub ? "sub" : "mul";
  return "wasmgpu_f" + std::to_string(width) + "_" + what;
}

// f32 + - *: both operands widened to f64 (natively unless one has a zero
// exponent field), one native f64 operation, then demoted.
void ExactFloat::emit_f32_arith(Id id, Op op) {
  Id params[] = {k_.types.u32, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.u32, params);
  k_.b.name(id, arith_helper_name(op, 32));
  Emit e{k_, f};
  Id a = f.param(0), b = f.param(1);
  const Id f64 = k_.types.f64();
  Id wide_a = f.variable(f64), wide_b = f.variable(f64);
  auto exp_zero = [&](Id v) {
    Id zero = e.u32(0);
    return e.test(Op::OpIEqual, e.op32(Op::OpBitwiseAnd, v, e.u32(0x7F80'0000u)), zero);
  };
  Id b_exp_zero = exp_zero(b);
  f.if_else(
      e.any(exp_zero(a), b_exp_zero),
      [&] {
        f.store(wide_a, f.op(Op::OpBitcast, f64, {promote_bits(f, a)}));
        f.store(wide_b, f.op(Op::OpBitcast, f64, {promote_bits(f, b)}));
      },
      [&] {
        f.store(wide_a, f.op(Op::OpFConvert, f64, {f.op(Op::OpBitcast, k_.types.f32(), {a})}));
        f.store(wide_b, f.op(Op::OpFConvert, f64, {f.op(Op::OpBitcast, k_.types.f32(), {b})}));
      });
  Id r = f.op(op, f64, {f.load(f64, wide_a), f.load(f64, wide_b)});
  k_.b.decorate(r, spv::Decoration::NoContraction);
  Id r_bits = f.op(Op::OpBitcast, k_.types.u64, {r});
  Id narrowed = call(f, Helper::Demote, {r_bits});
  Fields fa = fields(e, kF32, e.to64(a)), fb = fields(e, kF32, e.to64(b));
  Fields fr = fields(e, kF64, r_bits);
  Id b_nan = is_nan(e, kF32, fb), b64 = e.to64(b);
  Id a_nan = is_nan(e, kF32, fa), a64 = e.to64(a);
  Id nan = e.to32(nan_result(e, kF32, a64, a_nan, b64, b_nan));
  Id result = e.sel(is_nan(e, kF64, fr), nan, narrowed);
  if (op != Op::OpFMul) {
    Id zero_sum = zero_sum_bits(e, op, a, b, 32);
    result = e.sel(both_zero(e, a, b, 32), zero_sum, result);
  }
  f.return_value(result);
  f.finish();
}

// Division: special operands first, then long division of the significands
// (u64 division in chunks), rounded once.
void ExactFloat::emit_div(Id id, const Format& fmt) {
  Id int_type = fmt.width == 64 ? k_.types.u64 : k_.types.u32;
  Id params[] = {int_type, int_type};
  FunctionBuilder f(k_.b, id, int_type, params);
  k_.b.name(id, fmt.width == 64 ? "wasmgpu_f64_div" : "wasmgpu_f32_div");
  Emit e{k_, f};
  auto narrow = [&](Id v) { return fmt.width == 64 ? v : e.to32(v); };
  Id a = fmt.width == 64 ? f.param(0) : e.to64(f.param(0));
  Id b = fmt.width == 64 ? f.param(1) : e.to64(f.param(1));
  Fields x = fields(e, fmt, a), y = fields(e, fmt, b);
  Id sign = e.op64(Op::OpBitwiseXor, x.sign, y.sign);
  Id signed_zero = e.shl(sign, e.u32(fmt.width - 1));
  Id signed_inf = e.op64(Op::OpBitwiseOr, signed_zero, e.u64(fmt.inf()));
  Id x_nan = is_nan(e, fmt, x), y_nan = is_nan(e, fmt, y);
  Id x_inf = e.test(Op::OpIEqual, x.magnitude, e.u64(fmt.inf()));
  Id y_inf = e.test(Op::OpIEqual, y.magnitude, e.u64(fmt.inf()));
  Id x_zero = e.test(Op::OpIEqual, x.magnitude, e.u64(0));
  Id y_zero = e.test(Op::OpIEqual, y.magnitude, e.u64(0));
  Id zero_by_zero = e.all(x_zero, y_zero);
  Id invalid = e.any(e.all(x_inf, y_inf), zero_by_zero);
  Id nan = e.any(e.any(x_nan, y_nan), invalid);
  Id infinite = e.any(x_inf, y_zero), zero = e.any(x_zero, y_inf);
  Id special = e.any(nan, e.any(infinite, zero));
  f.if_else(special, [&] {
    Id inf_or_zero = e.sel(infinite, signed_inf, signed_zero);
    Id result = e.sel(nan, nan_result(e, fmt, a, x_nan, b, y_nan), inf_or_zero);
    f.return_value(narrow(result));
  });
  auto [sig_a, exp_a] = normalize(e, fmt, x);
  auto [sig_b, exp_b] = normalize(e, fmt, y);
  Id less = e.test(Op::OpULessThan, sig_a, sig_b);
  sig_a = e.sel(less, e.shl(sig_a, e.u32(1)), sig_a);
  Id less_bit = e.bool32(less);
  Id exp = e.op32(Op::OpISub, e.op32(Op::OpISub, exp_a, exp_b), less_bit);
  // sig_b <= sig_a < 2 sig_b: the quotient's leading 1, then `chunk` more
  // bits per u64 division (the remainder stays below sig_b < 2^(mant+1)).
  uint32_t chunk = 63 - fmt.mant, steps = (fmt.mant + 2 + chunk - 1) / chunk;
  Id q = e.u64(1), rest = e.op64(Op::OpISub, sig_a, sig_b);
  for (uint32_t i = 0; i < steps; ++i) {
    Id shifted = e.shl(rest, e.u32(chunk));
    Id digits = e.op64(Op::OpUDiv, shifted, sig_b);
    q = e.op64(Op::OpBitwiseOr, e.shl(q, e.u32(chunk)), digits);
    rest = e.op64(Op::OpUMod, shifted, sig_b);
  }
  Id sticky = e.test(Op::OpINotEqual, rest, e.u64(0));
  f.return_value(narrow(round_pack(e, fmt, sign, exp, q, chunk * steps, sticky)));
  f.finish();
}

// Square root: digit-by-digit on the significand (two radicand bits per
// step), rounded once with the remainder as sticky bit.
void ExactFloat::emit_sqrt(Id id, const Format& fmt) {
  Id int_type = fmt.width == 64 ? k_.types.u64 : k_.types.u32;
  Id params[] = {int_type};
  FunctionBuilder f(k_.b, id, int_type, params);
  k_.b.name(id, fmt.width == 64 ? "wasmgpu_f64_sqrt" : "wasmgpu_f32_sqrt");
  Emit e{k_, f};
  auto narrow = [&](Id v) { return fmt.width == 64 ? v : e.to32(v); };
  Id a = fmt.width == 64 ? f.param(0) : e.to64(f.param(0));
  Fields x = fields(e, fmt, a);
  Id nan = is_nan(e, fmt, x);
  Id zero = e.test(Op::OpIEqual, x.magnitude, e.u64(0));
  Id nonzero = e.no(zero);
  Id negative = e.all(e.test(Op::OpINotEqual, x.sign, e.u64(0)), nonzero);
  Id pos_inf = e.test(Op::OpIEqual, a, e.u64(fmt.inf()));
  Id negative_or_inf = e.any(negative, pos_inf);
  Id special = e.any(e.any(nan, zero), negative_or_inf);
  f.if_else(special, [&] {
    Id canonical_or_a = e.sel(negative, e.u64(fmt.canonical_nan()), a);
    Id result = e.sel(nan, e.op64(Op::OpBitwiseOr, a, e.u64(fmt.quiet())), canonical_or_a);
    f.return_value(narrow(result));
  });
  auto [sig, exp] = normalize(e, fmt, x);
  Id zero32 = e.u32(0);
  Id odd = e.test(Op::OpINotEqual, e.op32(Op::OpBitwiseAnd, exp, e.u32(1)), zero32);
  sig = e.sel(odd, e.shl(sig, e.u32(1)), sig);
  exp = e.op32(Op::OpISub, exp, e.bool32(odd));
  // The radicand is sig << (mant + 4) (< 2^(2 mant + 6)); its root has its
  // leading bit at mant + 2 and stands for 2^(exp / 2).
  Id n_var = f.variable(k_.types.u64), rem_var = f.variable(k_.types.u64), root_var = f.variable(k_.types.u64);
  Id i_var = f.variable(k_.types.u32);
  f.store(n_var, sig);
  f.store(rem_var, e.u64(0));
  f.store(root_var, e.u64(0));
  f.store(i_var, e.u32(0));
  f.loop(
      [&](const FunctionBuilder::LoopBlocks& loop) {
        Id i = f.load(k_.types.u32, i_var);
        f.if_else(e.test(Op::OpUGreaterThanEqual, i, e.u32(fmt.mant + 3)), [&] { f.branch(loop.merge); });
        Id n = f.load(k_.types.u64, n_var);
        Id pair = e.and64(e.shr(n, e.u32(fmt.mant)), 3);
        f.store(n_var, e.and64(e.shl(n, e.u32(2)), (uint64_t(1) << (fmt.mant + 2)) - 1));
        Id two = e.u32(2);
        Id rem = e.op64(Op::OpBitwiseOr, e.shl(f.load(k_.types.u64, rem_var), two), pair);
        Id root = f.load(k_.types.u64, root_var);
        Id one = e.u64(1);
        Id trial = e.op64(Op::OpBitwiseOr, e.shl(root, two), one);
        Id fits = e.test(Op::OpUGreaterThanEqual, rem, trial);
        f.store(rem_var, e.sel(fits, e.op64(Op::OpISub, rem, trial), rem));
        Id fits_bit = e.bool64(fits);
        f.store(root_var, e.op64(Op::OpBitwiseOr, e.shl(root, e.u32(1)), fits_bit));
      },
      [&](const FunctionBuilder::LoopBlocks& loop) {
        Id one = e.u32(1);
        f.store(i_var, e.op32(Op::OpIAdd, f.load(k_.types.u32, i_var), one));
        f.branch(loop.header);
      });
  Id zero64 = e.u64(0);
  Id sticky = e.test(Op::OpINotEqual, f.load(k_.types.u64, rem_var), zero64);
  Id half_exp = e.op32(Op::OpShiftRightArithmetic, exp, e.u32(1));
  Id root = f.load(k_.types.u64, root_var);
  Id result = round_pack(e, fmt, zero64, half_exp, root, fmt.mant + 2, sticky);
  f.return_value(narrow(result));
  f.finish();
}

// Comparisons on bit patterns: no device flushes an integer.
Id ExactFloat::compare(FunctionBuilder& f, Opcode opcode, const Format& fmt, Id a, Id b) {
  Emit e{k_, f};
  Fields x = fields(e, fmt, a), y = fields(e, fmt, b);
  Id y_nan = is_nan(e, fmt, y);
  Id unordered = e.any(is_nan(e, fmt, x), y_nan);
  Id zero = e.u64(0);
  Id both_zero = e.test(Op::OpIEqual, e.op64(Op::OpBitwiseOr, x.magnitude, y.magnitude), zero);
  // Monotone map to unsigned order: negatives reversed below positives.
  auto key = [&](Id v, const Fields& fv) {
    Id positive_key = e.op64(Op::OpBitwiseOr, v, e.u64(fmt.sign()));
    Id negative_key = e.op64(Op::OpBitwiseXor, v, e.u64(fmt.sign() * 2 - 1));
    return e.sel(e.test(Op::OpINotEqual, fv.sign, e.u64(0)), negative_key, positive_key);
  };
  Id ka = key(a, x), kb = key(b, y);
  Id equal = e.any(e.test(Op::OpIEqual, a, b), both_zero);
  Id result;
  switch (opcode) {
    case Opcode::F32Eq:
    case Opcode::F64Eq: result = equal; break;
    case Opcode::F32Ne:
    case Opcode::F64Ne: return e.any(unordered, e.no(equal));
    case Opcode::F32Lt:
    case Opcode::F64Lt: {
      Id less = e.test(Op::OpULessThan, ka, kb);
      result = e.all(e.no(equal), less);
      break;
    }
    case Opcode::F32Gt:
    case Opcode::F64Gt: {
      Id greater = e.test(Op::OpUGreaterThan, ka, kb);
      result = e.all(e.no(equal), greater);
      break;
    }
    case Opcode::F32Le:
    case Opcode::F64Le: result = e.any(equal, e.test(Op::OpULessThan, ka, kb)); break;
    case Opcode::F32Ge:
    case Opcode::F64Ge: result = e.any(equal, e.test(Op::OpUGreaterThan, ka, kb)); break;
    default: assert(false);
  }
  return e.all(e.no(unordered), result);
}

// The device's own comparison: IEEE's answer, which is wasm's (unordered
// for NaN, -0 == +0), whenever no operand is subnormal; under
// SignedZeroInfNanPreserve a device keeps NaNs and infinities, and only
// subnormal operands may be flushed to zero.
Id ExactFloat::native_compare(FunctionBuilder& f, Opcode opcode, Id a, Id b) {
  Op op = Op::OpFOrdEqual;
  switch (opcode) {
    case Opcode::F32Eq:
    case Opcode::F64Eq: op = Op::OpFOrdEqual; break;
    case Opcode::F32Ne:
    case Opcode::F64Ne: op = Op::OpFUnordNotEqual; break;
    case Opcode::F32Lt:
    case Opcode::F64Lt: op = Op::OpFOrdLessThan; break;
    case Opcode::F32Gt:
    case Opcode::F64Gt: op = Op::OpFOrdGreaterThan; break;
    case Opcode::F32Le:
    case Opcode::F64Le: op = Op::OpFOrdLessThanEqual; break;
    case Opcode::F32Ge:
    case Opcode::F64Ge: op = Op::OpFOrdGreaterThanEqual; break;
    default: assert(false);
  }
  return f.op(op, k_.types.bool_type, {a, b});
}

// Whether native_compare's answer stands: no operand is zero or subnormal,
// tested on the bits (a flushing device may read a subnormal as zero in any
// float instruction, abs included). f32: the exponent field is not zero;
// f64: the same on the high word. Zeros take the bit compare too (one test
// instead of two); where the probe or the device promises f64 subnormals,
// f64 compares need no test. On the H200 the bit compare on every f32
// compare held mandelbrot's exact mode to 0.16 of its precise twin.
Id ExactFloat::native_compare_holds(FunctionBuilder& f, bool is64, Id a, Id b) {
  Emit e{k_, f};
  if (is64 && k_.f64_subnormals_native) return k_.b.const_bool(true);
  auto normal_or_special = [&](Id v) {
    Id high;
    if (is64) {
      Id thirty_two = e.u32(32);
      high = e.to32(e.shr(f.op(Op::OpBitcast, k_.types.u64, {v}), thirty_two));
    } else {
      high = f.op(Op::OpBitcast, k_.types.u32, {v});
    }
    Id exponent = e.op32(Op::OpBitwiseAnd, high, e.u32(is64 ? 0x7FF0'0000u : 0x7F80'0000u));
    return e.test(Op::OpINotEqual, exponent, e.u32(0));
  };
  Id b_holds = normal_or_special(b);
  return e.all(normal_or_special(a), b_holds);
}

// min/max: the same order, in which -0 < +0 as wasm wants.
Id ExactFloat::min_max(FunctionBuilder& f, bool is_min, const Format& fmt, Id a, Id b) {
  Emit e{k_, f};
  Fields x = fields(e, fmt, a), y = fields(e, fmt, b);
  Id x_nan = is_nan(e, fmt, x), y_nan = is_nan(e, fmt, y);
  auto key = [&](Id v, const Fields& fv) {
    Id positive_key = e.op64(Op::OpBitwiseOr, v, e.u64(fmt.sign()));
    Id negative_key = e.op64(Op::OpBitwiseXor, v, e.u64(fmt.sign() * 2 - 1));
    return e.sel(e.test(Op::OpINotEqual, fv.sign, e.u64(0)), negative_key, positive_key);
  };
  Id b_key = key(b, y);
  Id a_first = e.test(is_min ? Op::OpULessThan : Op::OpUGreaterThan, key(a, x), b_key);
  Id result = e.sel(a_first, a, b);
  Id nan = nan_result(e, fmt, a, x_nan, b, y_nan);
  return e.sel(e.any(x_nan, y_nan), nan, result);
}

// f64 + - *: native, with wasm's NaN results. Where the device may flush
// f64 subnormals (CompileOptions::f64_subnormals_native false), the native
// result stands only under the tests f32_arith_inline explains for f32, with
// 2^-1022 for 2^-126; everything else takes the integer helper.
Id ExactFloat::f64_native(FunctionBuilder& f, Op op, Id a, Id b) {
  Emit e{k_, f};
  Id r = f.op(op, k_.types.f64(), {a, b});
  k_.b.decorate(r, spv::Decoration::NoContraction);
  Id a_bits = f.op(Op::OpBitcast, k_.types.u64, {a}), b_bits = f.op(Op::OpBitcast, k_.types.u64, {b});
  if (!k_.f64_subnormals_native) {
    const Id smallest_normal = k_.b.const_f64_bits(uint64_t(1) << 52);
    auto magnitude = [&](Id v) { return f.glsl(GLSLstd450FAbs, k_.types.f64(), {v}); };
    Id keep = e.test(Op::OpFOrdGreaterThanEqual, magnitude(r), smallest_normal);
    if (op != Op::OpFMul) {
      keep = e.all(keep, e.test(Op::OpFUnordGreaterThanEqual, magnitude(a), smallest_normal));
      keep = e.all(keep, e.test(Op::OpFUnordGreaterThanEqual, magnitude(b), smallest_normal));
    }
    Id bits = f.variable(k_.types.u64);
    f.store(bits, f.op(Op::OpBitcast, k_.types.u64, {r}));
    Helper helper = op == Op::OpFAdd ? Helper::F64Add : op == Op::OpFSub ? Helper::F64Sub : Helper::F64Mul;
    f.if_else(e.no(keep), [&] { f.store(bits, call(f, helper, {a_bits, b_bits})); });
    Id result_bits = f.load(k_.types.u64, bits);
    return f.op(Op::OpBitcast, k_.types.f64(), {result_bits});
  }
  // Only a NaN or a zero result can differ from wasm's bits (NaN payloads;
  // zero sums a driver folded, see both_zero), and one ordered compare
  // finds both: the fix-ups on 64-bit integers, a dozen instructions each
  // that a GPU emulates on 32-bit halves, run on that rare path alone. On the
  // H200 they ran on every operation before and held horner_f64's exact
  // mode to 0.13 of its precise twin (docs/performance.md).
  Id ordinary = e.test(Op::OpFOrdNotEqual, r, k_.b.const_f64_bits(0));
  Id bits = f.variable(k_.types.u64);
  f.store(bits, f.op(Op::OpBitcast, k_.types.u64, {r}));
  f.if_else(e.no(ordinary), [&] {
    Fields x = fields(e, kF64, a_bits), y = fields(e, kF64, b_bits);
    Id y_nan = is_nan(e, kF64, y);
    Id nan = nan_result(e, kF64, a_bits, is_nan(e, kF64, x), b_bits, y_nan);
    Id r_nan = f.op(Op::OpIsNan, k_.types.bool_type, {r});
    Id result = e.sel(r_nan, nan, f.op(Op::OpBitcast, k_.types.u64, {r}));
    if (op != Op::OpFMul) {
      Id zero_sum = zero_sum_bits(e, op, a_bits, b_bits, 64);
      result = e.sel(both_zero(e, a_bits, b_bits, 64), zero_sum, result);
    }
    f.store(bits, result);
  });
  Id result_bits = f.load(k_.types.u64, bits);
  return f.op(Op::OpBitcast, k_.types.f64(), {result_bits});
}

// f64 + - * on integers (u64 bits in and out), subnormals included: for
// devices that may flush f64 subnormals. Significands are normalised with
// their leading bit at 60 (8 bits below the 53 kept), the smaller operand
// of a sum is shifted right with the bits it loses ORed into its last bit
// (sticky), and the exact sum or the top of the 106-bit product is rounded
// once by round_pack. A sticky bit 8 places below the rounding point stays
// below it after the at most one-place left shift a difference can need
// once operands are more than one place apart, so it decides only ties.
void ExactFloat::emit_f64_arith(Id id, Op op) {
  Id params[] = {k_.types.u64, k_.types.u64};
  FunctionBuilder f(k_.b, id, k_.types.u64, params);
  k_.b.name(id, arith_helper_name(op, 64));
  Emit e{k_, f};
  Id a = f.param(0), b = f.param(1);
  if (op == Op::OpFSub) b = e.op64(Op::OpBitwiseXor, b, e.u64(kF64.sign()));  // x - y = x + (-y)
  Fields x = fields(e, kF64, a), y = fields(e, kF64, b);
  Id x_nan = is_nan(e, kF64, x), y_nan = is_nan(e, kF64, y);
  Id x_inf = e.test(Op::OpIEqual, x.magnitude, e.u64(kF64.inf()));
  Id y_inf = e.test(Op::OpIEqual, y.magnitude, e.u64(kF64.inf()));
  Id x_zero = e.test(Op::OpIEqual, x.magnitude, e.u64(0));
  Id y_zero = e.test(Op::OpIEqual, y.magnitude, e.u64(0));
  // NaN operands keep their own bits: the subtrahend's sign flip above is
  // undone for the NaN result, as wasm's NaN rules speak of the operands.
  Id b_operand = f.param(1);
  if (op == Op::OpFMul) {
    Id sign = e.op64(Op::OpBitwiseXor, x.sign, y.sign);
    Id signed_zero = e.shl(sign, e.u32(63));
    Id signed_inf = e.op64(Op::OpBitwiseOr, signed_zero, e.u64(kF64.inf()));
    Id zero_times_inf = e.all(x_zero, y_inf);
    Id invalid = e.any(e.all(x_inf, y_zero), zero_times_inf);
    Id nan = e.any(e.any(x_nan, y_nan), invalid);
    Id infinite = e.any(x_inf, y_inf), zero = e.any(x_zero, y_zero);
    f.if_else(e.any(nan, e.any(infinite, zero)), [&] {
      Id inf_or_zero = e.sel(infinite, signed_inf, signed_zero);
      f.return_value(e.sel(nan, nan_result(e, kF64, a, x_nan, b_operand, y_nan), inf_or_zero));
    });
    auto [sig_a, exp_a] = normalize(e, kF64, x);
    auto [sig_b, exp_b] = normalize(e, kF64, y);
    // 53 x 53 bits in 32-bit limbs: the product < 2^106 as hi:lo.
    Id a_hi = e.shr(sig_a, e.u32(32)), a_lo = e.and64(sig_a, 0xFFFF'FFFFu);
    Id b_hi = e.shr(sig_b, e.u32(32)), b_lo = e.and64(sig_b, 0xFFFF'FFFFu);
    Id low = e.op64(Op::OpIMul, a_lo, b_lo);
    Id lo_hi = e.op64(Op::OpIMul, a_lo, b_hi);
    Id middle = e.op64(Op::OpIAdd, e.op64(Op::OpIMul, a_hi, b_lo), lo_hi);
    Id lo = e.op64(Op::OpIAdd, low, e.shl(middle, e.u32(32)));
    Id carry = e.bool64(e.test(Op::OpULessThan, lo, low));
    Id middle_hi = e.shr(middle, e.u32(32));
    Id hi = e.op64(Op::OpIAdd, e.op64(Op::OpIAdd, e.op64(Op::OpIMul, a_hi, b_hi), middle_hi), carry);
    // The product's top bits (leading bit at 60 or 61) and whether any of
    // the 44 below them is set.
    Id lo_top = e.shr(lo, e.u32(44));
    Id top = e.op64(Op::OpBitwiseOr, e.shl(hi, e.u32(20)), lo_top);
    Id zero64 = e.u64(0);
    Id sticky = e.test(Op::OpINotEqual, e.and64(lo, (uint64_t(1) << 44) - 1), zero64);
    Id at_61 = e.test(Op::OpINotEqual, e.shr(top, e.u32(61)), zero64);
    Id sig = e.sel(at_61, top, e.shl(top, e.u32(1)));
    // sig_a sig_b 2^(exp_a + exp_b - 104) = top 2^(exp_a + exp_b - 60).
    Id carry_bit = e.bool32(at_61);
    Id exp = e.op32(Op::OpIAdd, e.op32(Op::OpIAdd, exp_a, exp_b), carry_bit);
    f.return_value(round_pack(e, kF64, sign, exp, sig, 61, sticky));
    f.finish();
    return;
  }
  Id opposite_signs = e.test(Op::OpINotEqual, x.sign, y.sign);
  Id inf_minus_inf = e.all(e.all(x_inf, y_inf), opposite_signs);
  Id nan = e.any(e.any(x_nan, y_nan), inf_minus_inf);
  f.if_else(nan, [&] { f.return_value(nan_result(e, kF64, a, x_nan, b_operand, y_nan)); });
  f.if_else(x_inf, [&] { f.return_value(a); });
  f.if_else(y_inf, [&] { f.return_value(b); });
  // Two zeros: -0 only when both are -0; one zero: the other operand, exactly.
  f.if_else(e.all(x_zero, y_zero), [&] { f.return_value(e.op64(Op::OpBitwiseAnd, a, b)); });
  f.if_else(x_zero, [&] { f.return_value(b); });
  f.if_else(y_zero, [&] { f.return_value(a); });
  // The larger magnitude first.
  Id swap = e.test(Op::OpULessThan, x.magnitude, y.magnitude);
  auto [sig_x, exp_x] = normalize(e, kF64, x);
  auto [sig_y, exp_y] = normalize(e, kF64, y);
  Id eight = e.u32(8);
  Id sig_big = e.shl(e.sel(swap, sig_y, sig_x), eight), sig_small = e.shl(e.sel(swap, sig_x, sig_y), eight);
  Id exp_big = e.sel(swap, exp_y, exp_x), exp_small = e.sel(swap, exp_x, exp_y);
  Id sign = e.sel(swap, y.sign, x.sign);
  Id distance = e.op32(Op::OpISub, exp_big, exp_small);
  Id max_distance = e.u32(63);
  distance = e.sel(e.test(Op::OpUGreaterThan, distance, max_distance), max_distance, distance);
  Id one = e.u64(1);
  Id lost = e.op64(Op::OpBitwiseAnd, sig_small, e.op64(Op::OpISub, e.shl(one, distance), one));
  Id lost_bit = e.bool64(e.test(Op::OpINotEqual, lost, e.u64(0)));
  Id aligned = e.op64(Op::OpBitwiseOr, e.shr(sig_small, distance), lost_bit);
  Id same_sign = e.test(Op::OpIEqual, x.sign, y.sign);
  Id difference = e.op64(Op::OpISub, sig_big, aligned);
  Id sum = e.sel(same_sign, e.op64(Op::OpIAdd, sig_big, aligned), difference);
  // Exact cancellation gives +0 under round to nearest.
  f.if_else(e.test(Op::OpIEqual, sum, e.u64(0)), [&] { f.return_value(e.u64(0)); });
  // sig_big 2^(exp_big - 60) = sum 2^(exp_big - 60): lead the sum at 61.
  Id lead = e.msb64(sum);
  Id shift = e.op32(Op::OpISub, e.u32(61), lead);
  Id sixty = e.u32(60);
  Id exp = e.op32(Op::OpISub, e.op32(Op::OpIAdd, exp_big, lead), sixty);
  Id no_sticky = k_.b.const_bool(false);
  f.return_value(round_pack(e, kF64, sign, exp, e.shl(sum, shift), 61, no_sticky));
  f.finish();
}

// f32 + - * (f32 in, bits out): the native f32 operation when no subnormal
// can be involved, else the helper. Vulkan rounds f32 + - * correctly and
// only flushing subnormals (inputs or outputs) can make a device differ from
// IEEE. A native result whose magnitude is at least 2^-126 (a normal number
// or an infinity, not a NaN) is the IEEE result when:
//  - multiplying: a flushed input gives ±0 or NaN, never a product that large;
//    a product whose exact value is tiny but rounds to 2^-126 is 2^-126 under
//    IEEE rounding too (the subnormal spacing below 2^-126 equals the normal
//    spacing above it); a product of finite inputs that overflows is an
//    infinity under round-to-nearest-even in both;
//  - adding or subtracting: neither operand is subnormal either (each one's
//    magnitude is at least 2^-126 or it is a NaN), since a flushed subnormal
//    operand can leave a normal but wrong sum (2^-126 + 2^-149); a sum of
//    normals that is tiny is exact and would be flushed, giving 0.
// Zeros, subnormals and NaNs (operands of + -, or results) take the helper,
// which also gives wasm's NaN bits. Each test is one float compare against
// 2^-126 (a subnormal compares below it whether or not the device flushes
// it), and an operand that an earlier member of the run produced or tested
// is not tested again. Inline, so that a kernel's hot path is the native
// operation, a compare or three and a branch not taken.
//
// The branch is shared by a run of such operations (an expression such as
// `b + s * c`): each one's values join the run's test (run_test()), and the run settles (settle())
// before the first instruction that is not another f32 + - *, a push of a
// local or constant, a load or integer arithmetic (continues_run()). Only then, if some test failed, is the whole run
// redone by the helpers in order, each from the redone results of the ones before; the operand stack's values of the
// run are replaced by the settled ones. Nothing outside the run has seen a value of it until then.
Id ExactFloat::f32_arith_inline(FunctionBuilder& f, Op op, Id lhs, Id rhs) {
  Id r = f.op(op, k_.types.f32(), {lhs, rhs});
  k_.b.decorate(r, spv::Decoration::NoContraction);
  if (op != Op::OpFMul) {
    // Known not subnormal while the run's test holds: its results and the
    // operands its additions tested.
    auto tested = [&](Id v) {
      for (const RunCheck& c : run_checks_)
        if (c.value == v) return true;
      return false;
    };
    if (!tested(lhs)) run_checks_.push_back({lhs, /*result=*/false});
    if (!tested(rhs)) run_checks_.push_back({rhs, /*result=*/false});
  }
  run_checks_.push_back({r, /*result=*/true});
  return f.op(Op::OpBitcast, k_.types.u32, {r});
}

// Whether every value the run tests is what f32_arith_inline requires: one
// compare each, joined in a chain in the order the run met them, emitted
// when the run settles. On the H200 this took the exact stencil from 0.84
// to 0.96 of its precise twin against the same compares emitted after each
// operation (and joined per operation); a balanced tree of the compares,
// or an unsigned maximum of `(bits << 1) - 2^24` with one compare, gave
// 0.83 (docs/performance.md).
Id ExactFloat::run_test(FunctionBuilder& f) {
  Emit e{k_, f};
  const Id smallest_normal = k_.b.const_f32_bits(0x0080'0000u);
  Id all;
  for (const RunCheck& c : run_checks_) {
    Id test = e.test(c.result ? Op::OpFOrdGreaterThanEqual : Op::OpFUnordGreaterThanEqual,
                     f.glsl(GLSLstd450FAbs, k_.types.f32(), {c.value}), smallest_normal);
    all = !all ? test : e.all(all, test);
  }
  return all;
}

bool ExactFloat::continues_run(Opcode opcode) {
  switch (opcode) {
    case Opcode::F32Add:
    case Opcode::F32Sub:
    case Opcode::F32Mul:
    case Opcode::LocalGet:
    case Opcode::I32Const:
    case Opcode::I64Const:
    case Opcode::F32Const:
    case Opcode::F64Const:
    case Opcode::Nop:
    // Loads and integer arithmetic take no f32 operand, so they cannot see
    // a value of the run, and write nothing (`b[i] + s * c[i]` loads b[i]
    // between the multiply and the add). A load that traps ends the
    // invocation's work: the run's values are then never used.
    case Opcode::I32Load:
    case Opcode::I64Load:
    case Opcode::F32Load:
    case Opcode::F64Load:
    case Opcode::I32Load8S:
    case Opcode::I32Load8U:
    case Opcode::I32Load16S:
    case Opcode::I32Load16U:
    case Opcode::I64Load8S:
    case Opcode::I64Load8U:
    case Opcode::I64Load16S:
    case Opcode::I64Load16U:
    case Opcode::I64Load32S:
    case Opcode::I64Load32U:
    case Opcode::I32Add:
    case Opcode::I32Sub:
    case Opcode::I32Mul:
    case Opcode::I32And:
    case Opcode::I32Or:
    case Opcode::I32Xor:
    case Opcode::I32Shl:
    case Opcode::I32ShrS:
    case Opcode::I32ShrU:
    case Opcode::I64Add:
    case Opcode::I64Sub:
    case Opcode::I64Mul:
    case Opcode::I64And:
    case Opcode::I64Or:
    case Opcode::I64Xor:
    case Opcode::I64Shl:
    case Opcode::I64ShrS:
    case Opcode::I64ShrU: return true;
    default: return false;
  }
}

void ExactFloat::settle(FunctionBuilder& f, std::vector<Id>& stack) {
  if (run_.empty()) return;
  Emit e{k_, f};
  std::vector<Id> variables;
  for (const RunOp& r : run_) {
    variables.push_back(f.variable(k_.types.u32));
    f.store(variables.back(), r.native_bits);
  }
  f.if_else(e.no(run_test(f)), [&] {
    // An operand that is an earlier member's result is read as redone.
    auto input = [&](Id value) {
      for (size_t j = 0; j < run_.size(); ++j)
        if (run_[j].result == value) return f.load(k_.types.u32, variables[j]);
      return f.op(Op::OpBitcast, k_.types.u32, {value});
    };
    for (size_t i = 0; i < run_.size(); ++i)
      f.store(variables[i], call(f, run_[i].helper, {input(run_[i].lhs), input(run_[i].rhs)}));
  });
  for (size_t i = 0; i < run_.size(); ++i) {
    Id settled_bits = f.load(k_.types.u32, variables[i]);
    Id settled = f.op(Op::OpBitcast, k_.types.f32(), {settled_bits});
    for (Id& value : stack)
      if (value == run_[i].result) value = settled;
  }
  run_.clear();
  run_checks_.clear();
}

bool ExactFloat::lower(FunctionBuilder& f, Opcode opcode, std::vector<Id>& stack) {
  Emit e{k_, f};
  auto pop = [&] {
    Id v = stack.back();
    stack.pop_back();
    return v;
  };
  auto bits32 = [&](Id v) { return f.op(Op::OpBitcast, k_.types.u32, {v}); };
  auto bits64 = [&](Id v) { return f.op(Op::OpBitcast, k_.types.u64, {v}); };
  auto wide32 = [&](Id v) { return e.to64(bits32(v)); };  // f32 bits in a u64
  auto as_f32 = [&](Id v) { return f.op(Op::OpBitcast, k_.types.f32(), {v}); };
  auto as_f64 = [&](Id v) { return f.op(Op::OpBitcast, k_.types.f64(), {v}); };
  auto f32_helper = [&](Helper h) {
    k_.types.f64();  // exact f32 arithmetic goes through f64: names this function as an f64 user
    Id rhs = pop(), lhs = pop();
    stack.push_back(as_f32(call(f, h, {bits32(lhs), bits32(rhs)})));
  };
  auto f32_arith = [&](Helper h, Op op) {
    k_.types.f64();  // the helper (the slow path) computes in f64
    if (run_.size() >= kMaxRun) settle(f, stack);
    Id rhs = pop(), lhs = pop();
    Id native = f32_arith_inline(f, op, lhs, rhs);
    Id result = as_f32(native);
    run_.push_back({h, lhs, rhs, native, result});
    stack.push_back(result);
  };
  switch (opcode) {
    case Opcode::F32Add: f32_arith(Helper::F32Add, Op::OpFAdd); return true;
    case Opcode::F32Sub: f32_arith(Helper::F32Sub, Op::OpFSub); return true;
    case Opcode::F32Mul: f32_arith(Helper::F32Mul, Op::OpFMul); return true;
    case Opcode::F32Div: f32_helper(Helper::F32Div); return true;
    case Opcode::F64Div: {
      Id rhs = pop(), lhs = pop();
      stack.push_back(as_f64(call(f, Helper::F64Div, {bits64(lhs), bits64(rhs)})));
      return true;
    }
    case Opcode::F64Add:
    case Opcode::F64Sub:
    case Opcode::F64Mul: {
      static constexpr Op kOps[] = {Op::OpFAdd, Op::OpFSub, Op::OpFMul};
      Id rhs = pop(), lhs = pop();
      stack.push_back(f64_native(f, kOps[size_t(opcode) - size_t(Opcode::F64Add)], lhs, rhs));
      return true;
    }
    case Opcode::F32Sqrt: stack.push_back(as_f32(call(f, Helper::F32Sqrt, {bits32(pop())}))); return true;
    case Opcode::F64Sqrt: stack.push_back(as_f64(call(f, Helper::F64Sqrt, {bits64(pop())}))); return true;
    case Opcode::F32Eq:
    case Opcode::F32Ne:
    case Opcode::F32Lt:
    case Opcode::F32Gt:
    case Opcode::F32Le:
    case Opcode::F32Ge:
    case Opcode::F64Eq:
    case Opcode::F64Ne:
    case Opcode::F64Lt:
    case Opcode::F64Gt:
    case Opcode::F64Le:
    case Opcode::F64Ge: {
      bool is64 = wasm::info(opcode).params[0] == wasm::ValType::F64;
      Id rhs = pop(), lhs = pop();
      Id result = f.variable(k_.types.bool_type);
      f.store(result, native_compare(f, opcode, lhs, rhs));
      f.if_else(e.no(native_compare_holds(f, is64, lhs, rhs)), [&] {
        Id a = is64 ? bits64(lhs) : wide32(lhs), b = is64 ? bits64(rhs) : wide32(rhs);
        f.store(result, compare(f, opcode, is64 ? kF64 : kF32, a, b));
      });
      Id zero = e.u32(0), one = e.u32(1);
      stack.push_back(e.sel(f.load(k_.types.bool_type, result), one, zero));
      return true;
    }
    case Opcode::F32Min:
    case Opcode::F32Max: {
      Id rhs = pop(), lhs = pop();
      Id wide_rhs = wide32(rhs);
      Id r = min_max(f, opcode == Opcode::F32Min, kF32, wide32(lhs), wide_rhs);
      stack.push_back(as_f32(e.to32(r)));
      return true;
    }
    case Opcode::F64Min:
    case Opcode::F64Max: {
      Id rhs = pop(), lhs = pop();
      Id rhs_bits = bits64(rhs);
      stack.push_back(as_f64(min_max(f, opcode == Opcode::F64Min, kF64, bits64(lhs), rhs_bits)));
      return true;
    }
    case Opcode::F32Ceil:
    case Opcode::F32Floor:
    case Opcode::F32Trunc:
    case Opcode::F32Nearest:
    case Opcode::F64Ceil:
    case Opcode::F64Floor:
    case Opcode::F64Trunc:
    case Opcode::F64Nearest: stack.push_back(round_to_integral(k_, f, opcode, pop())); return true;
    case Opcode::F64PromoteF32: stack.push_back(as_f64(promote_bits(f, bits32(pop())))); return true;
    case Opcode::F32DemoteF64: stack.push_back(as_f32(call(f, Helper::Demote, {bits64(pop())}))); return true;
    default: return false;
  }
}

}  // namespace wasmgpu::spirv
