// Fixed-width SIMD (v128, WebAssembly 2.0) and relaxed SIMD's deterministic
// profile (WebAssembly 3.0) as LLVM vector IR for the cpu device. A v128 is
// one <2 x i64> everywhere (locals, phis, calls, globals); each instruction
// bitcasts it to its lanes' shape (<16 x i8> .. <2 x double>) and back. Float
// lanes follow the scalar instructions' rules (cpu/float_rules.h); memory
// accesses go through the function's bounds-checked translation.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <cstdint>

#include "cpu/float_rules.h"
#include "wasm/module.h"

namespace wasmgpu::cpu {

// What the SIMD lowering needs from the function being lowered.
class SimdHost {
 public:
  virtual llvm::Value* pop() = 0;
  virtual void push(llvm::Value* v) = 0;
  // The host address of [ea, ea + width) (ea: i64), or a trap.
  virtual llvm::Value* translate(llvm::Value* ea, uint32_t width) = 0;

 protected:
  ~SimdHost() = default;
};

// The LLVM type of a v128 value.
llvm::FixedVectorType* v128_type(llvm::LLVMContext& context);

// Lowers `instr`, an instruction of class Vector (wasm/opcode.h); false for
// one it does not know (the caller traps, as for any unknown instruction).
bool lower_simd(llvm::IRBuilder<>& b, FloatRules rules, SimdHost& host, const wasm::Instr& instr);

}  // namespace wasmgpu::cpu
