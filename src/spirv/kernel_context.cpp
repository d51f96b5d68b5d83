#include "spirv/kernel_context.h"

#include <cassert>

namespace wasmgpu::spirv {

KernelContext::KernelContext(const wasm::Module& module, ModuleBuilder& builder,
                             const StackLayout& stack)
    : module(module), b(builder), stack(stack) {
  t_void = b.void_type();
  t_bool = b.bool_type();
  t_u32 = b.uint_type(32);
  t_u64 = b.uint_type(64);
}

uint32_t KernelContext::t_u8() { return b.uint_type(8); }
uint32_t KernelContext::t_f32() { return b.float_type(32); }
uint32_t KernelContext::t_f64() {
  uses_float64 = true;
  return b.float_type(64);
}

uint32_t KernelContext::value_type(wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I32: return t_u32;
    case wasm::ValType::I64: return t_u64;
    case wasm::ValType::F32: return t_f32();
    case wasm::ValType::F64: return t_f64();
    default: break;
  }
  assert(false && "non-numeric types are refused before lowering");
  return t_u32;
}

uint32_t KernelContext::result_type(const std::vector<wasm::ValType>& results) {
  if (results.empty()) return t_void;
  if (results.size() == 1) return value_type(results[0]);
  std::vector<uint32_t> members;
  for (wasm::ValType type : results) members.push_back(value_type(type));
  return b.struct_type(members);
}

uint32_t KernelContext::device_pointer(FunctionBuilder& f, uint32_t address, uint32_t pointee) {
  uint32_t pointer_type = b.pointer_type(spv::StorageClass::PhysicalStorageBuffer, pointee);
  return f.op(spv::Op::OpConvertUToPtr, pointer_type, {address});
}

}  // namespace wasmgpu::spirv
