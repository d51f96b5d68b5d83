// wasm's float rules in exact mode (docs/float-modes.md) as LLVM IR, for a
// scalar f32/f64 or a vector of them (the SIMD lanes follow the scalar
// instructions' rules lane by lane): NaN results, min/max, and the NaN of a
// promote/demote. Fast mode leaves NaNs to the CPU.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace wasmgpu::cpu {

class FloatRules {
 public:
  FloatRules(llvm::IRBuilder<>& b, bool exact) : b_(b), exact_(exact) {}

  bool exact() const { return exact_; }
  // The bits of a float (or float vector) as the integer type of its shape.
  llvm::Value* bits(llvm::Value* v);
  // wasm's NaN result: the first NaN operand quieted, else the canonical
  // NaN; other results as they are. `b` may be null (one operand).
  llvm::Value* nan_fix(llvm::Value* result, llvm::Value* a, llvm::Value* b);
  // min/max on the integer order of the bits, in which -0 < +0; NaNs as nan_fix.
  llvm::Value* min_max(llvm::Value* a, llvm::Value* b, bool is_min);
  // A NaN result of promote/demote: the operand's payload, quieted.
  llvm::Value* convert_nan(llvm::Value* result, llvm::Value* operand);

 private:
  llvm::IRBuilder<>& b_;
  bool exact_;
};

}  // namespace wasmgpu::cpu
