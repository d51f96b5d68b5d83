// The SPIR-V ids of the types the lowering of one kernel uses everywhere.
// The scalar integer and bool types are declared up front (their ids come
// first in every module); the others on first use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv/module_builder.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

class KernelTypes {
 public:
  // `current_function` is the wasm function being lowered (UINT32_MAX
  // outside one), read when f64 is first asked for.
  KernelTypes(const wasm::Module& module, ModuleBuilder& builder, const uint32_t& current_function);

  Id void_type, bool_type, u32, u64;
  Id u8();
  Id f32();
  // Also records that the kernel needs shaderFloat64, and which function asked first.
  Id f64();
  Id uvec3();
  // uvec4: a v128's 16 bytes as four little-endian u32 words (docs/compiler.md).
  Id v128();
  Id value_type(wasm::ValType type);                          // i32->u32, i64->u64, f32, f64, v128
  Id result_type(const std::vector<wasm::ValType>& results);  // void, scalar or struct

  bool uses_float64 = false;
  std::string float64_function;  // first function that used f64

 private:
  const wasm::Module& module_;
  ModuleBuilder& b_;
  const uint32_t& current_function_;
};

}  // namespace wasmgpu::spirv
