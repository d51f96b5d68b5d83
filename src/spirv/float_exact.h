// Exact float mode (docs/float-modes.md): wasm float semantics that do not
// depend on what a Vulkan device guarantees. Vulkan rounds f32/f64 + - *
// correctly but may flush subnormals (in and out), allows 2.5 ulp for
// division and derives square root from inverse square root. So:
//  - f32 + - * are native when the result is normal or infinite and no
//    operand of + - is zero or subnormal (then no flushing can have
//    happened: float_exact.cpp, f32_arith_inline); otherwise they are
//    done in f64 and rounded once (53 >= 2*24 + 2 makes the
//    double rounding innocuous); f32 operands with a zero exponent field
//    (zero or subnormal) are widened with integer operations, and results
//    that would be f32-subnormal are narrowed (round to nearest even) with
//    integer operations. No f32-derived f64 value is ever f64-subnormal.
//  - f32/f64 division and square root are integer long division and
//    digit-by-digit square root on the significands, rounded in integers.
//  - f64 + - * are native where the device keeps f64 subnormals; where it
//    may flush them (CompileOptions::f64_subnormals_native false, from the
//    device probe), a native result stands only when no subnormal can be
//    involved (as for f32) and the rest is done on integers.
//  - comparisons and min/max order the bit patterns as integers; ceil,
//    floor, trunc and nearest are integer operations on the bits in both
//    modes (float_rounding.h);
//    promote and demote are integer conversions (demote has a native fast
//    path for results in the normal range).
//  - NaN results follow wasm: canonical when no operand is a NaN, else a
//    quieted operand NaN.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "spirv/kernel_context.h"
#include "wasm/opcode.h"

namespace wasmgpu::spirv {

class ExactFloat {
 public:
  explicit ExactFloat(KernelContext& k) : k_(k) {}
  struct Format;  // an IEEE binary format's parameters

  // Lowers `opcode` when the exact mode treats it differently from the
  // native lowering: pops its operands from `stack`, pushes the result and
  // returns true. Returns false (touching nothing) for other opcodes.
  bool lower(FunctionBuilder& f, wasm::Opcode opcode, std::vector<Id>& stack);

  // Emits the helper functions asked for so far.
  void emit_bodies();

  // f32 + - * are lowered in runs that share one slow-path branch
  // (float_exact.cpp): settle() ends the current run, replacing its values on
  // `stack`; it must run before every instruction for which continues_run()
  // is false, and before a function's end.
  static bool continues_run(wasm::Opcode opcode);
  void settle(FunctionBuilder& f, std::vector<Id>& stack);

 private:
  enum class Helper : uint8_t {
    F32Add,
    F32Sub,
    F32Mul,
    F32Div,
    F64Div,
    F32Sqrt,
    F64Sqrt,
    Demote,
    F64Add,
    F64Sub,
    F64Mul
  };

  Id helper(Helper which);
  Id call(FunctionBuilder& f, Helper which, std::initializer_list<Id> args);
  void emit(Helper which, Id id);
  void emit_f32_arith(Id id, spv::Op op);
  void emit_div(Id id, const Format& fmt);
  void emit_sqrt(Id id, const Format& fmt);
  void emit_demote(Id id);
  void emit_f64_arith(Id id, spv::Op op);

  // Inline sequences (integer bits in, integer bits or bool out).
  Id promote_bits(FunctionBuilder& f, Id bits);  // u32 -> u64
  Id compare(FunctionBuilder& f, wasm::Opcode opcode, const Format& fmt, Id a, Id b);
  Id native_compare(FunctionBuilder& f, wasm::Opcode opcode, Id a, Id b);
  Id native_compare_holds(FunctionBuilder& f, bool is64, Id a, Id b);
  Id min_max(FunctionBuilder& f, bool is_min, const Format& fmt, Id a, Id b);
  Id f64_native(FunctionBuilder& f, spv::Op op, Id a, Id b);
  // The native result's bits of a run member (f32 operands); the values it
  // must test join run_checks_.
  Id f32_arith_inline(FunctionBuilder& f, spv::Op op, Id lhs, Id rhs);

  // The current run of f32 + - *: per member its helper, its operands and
  // result (f32 ids) and its native result's bits.
  struct RunOp {
    Helper helper;
    Id lhs, rhs, native_bits, result;
  };
  static constexpr size_t kMaxRun = 16;
  std::vector<RunOp> run_;
  // The values whose test decides whether the run's native results stand:
  // results (at least 2^-126 in magnitude, not NaN) and operands of + -
  // (not zero or subnormal), each once.
  struct RunCheck {
    Id value;  // f32
    bool result;
  };
  std::vector<RunCheck> run_checks_;
  // Whether every check of the run holds (a bool id), emitted at settle().
  Id run_test(FunctionBuilder& f);

  KernelContext& k_;
  std::map<Helper, Id> ids_;
  std::map<Helper, bool> emitted_;
};

}  // namespace wasmgpu::spirv
