#include "spirv/kernel_context.h"

namespace wasmgpu::spirv {

KernelContext::KernelContext(const wasm::Module& module, ModuleBuilder& builder, const StackLayout& stack)
    : module(module),
      b(builder),
      stack(stack),
      types(module, builder, current_function),
      abi(builder, types),
      spec(builder, types) {}

Id KernelContext::device_pointer(FunctionBuilder& f, Id address, Id pointee) {
  const Id pointer_type = b.pointer_type(spv::StorageClass::PhysicalStorageBuffer, pointee);
  return f.op(spv::Op::OpConvertUToPtr, pointer_type, {address});
}

Id KernelContext::instance_pointer(FunctionBuilder& f, uint32_t offset, Id type) {
  const Id base = f.load(types.u64, abi.instance_state_var);
  const Id address = f.op(spv::Op::OpIAdd, types.u64, {base, b.const_u64(offset)});
  return device_pointer(f, address, type);
}

}  // namespace wasmgpu::spirv
