#include "spirv/kernel_types.h"

#include <cassert>

namespace wasmgpu::spirv {

KernelTypes::KernelTypes(const wasm::Module& module, ModuleBuilder& builder, const uint32_t& current_function)
    : module_(module), b_(builder), current_function_(current_function) {
  void_type = b_.void_type();
  bool_type = b_.bool_type();
  u32 = b_.uint_type(32);
  u64 = b_.uint_type(64);
}

Id KernelTypes::u8() { return b_.uint_type(8); }
Id KernelTypes::f32() { return b_.float_type(32); }
Id KernelTypes::f64() {
  uses_float64 = true;
  if (float64_function.empty() && current_function_ != UINT32_MAX)
    float64_function = module_.function_name(current_function_);
  return b_.float_type(64);
}
Id KernelTypes::uvec3() { return b_.vector_type(u32, 3); }
Id KernelTypes::v128() { return b_.vector_type(u32, 4); }

Id KernelTypes::value_type(wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I32: return u32;
    case wasm::ValType::I64: return u64;
    case wasm::ValType::F32: return f32();
    case wasm::ValType::F64: return f64();
    case wasm::ValType::V128: return v128();
    case wasm::ValType::FuncRef:
    case wasm::ValType::ExternRef: return u32;  // function index, abi::kNullRef for null
    default: break;
  }
  assert(false && "non-numeric types are refused before lowering");
  return u32;
}

Id KernelTypes::result_type(const std::vector<wasm::ValType>& results) {
  if (results.empty()) return void_type;
  if (results.size() == 1) return value_type(results[0]);
  std::vector<Id> members;
  for (wasm::ValType type : results) members.push_back(value_type(type));
  return b_.struct_type(members);
}

}  // namespace wasmgpu::spirv
