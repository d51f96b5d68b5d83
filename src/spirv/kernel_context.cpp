#include "spirv/kernel_context.h"

#include <algorithm>
#include <cassert>
#include <iterator>

#include "abi/launch_abi.h"

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
  if (float64_function.empty() && current_function != UINT32_MAX)
    float64_function = module.function_name(current_function);
  return b.float_type(64);
}

uint32_t KernelContext::value_type(wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I32: return t_u32;
    case wasm::ValType::I64: return t_u64;
    case wasm::ValType::F32: return t_f32();
    case wasm::ValType::F64: return t_f64();
    case wasm::ValType::FuncRef:
    case wasm::ValType::ExternRef: return t_u32;  // function index, abi::kNullRef for null
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

namespace wasmgpu::spirv {

uint32_t KernelContext::instance_pointer(FunctionBuilder& f, uint32_t offset, uint32_t type) {
  uint32_t base = f.load(t_u64, instance_state_var);
  uint32_t address = f.op(spv::Op::OpIAdd, t_u64, {base, b.const_u64(offset)});
  return device_pointer(f, address, type);
}

uint32_t KernelContext::builtin_input(spv::BuiltIn builtin, uint32_t type) {
  auto it = builtin_vars.find(uint32_t(builtin));
  if (it != builtin_vars.end()) return it->second;
  uint32_t var = b.global_variable(b.pointer_type(spv::StorageClass::Input, type), spv::StorageClass::Input);
  b.decorate(var, spv::Decoration::BuiltIn, {uint32_t(builtin)});
  builtin_vars.emplace(uint32_t(builtin), var);
  return var;
}

const KernelContext::ParamRegion& KernelContext::param_region(uint32_t param) {
  auto it = param_regions.find(param);
  if (it != param_regions.end()) return it->second;
  auto var = [&](const std::string& name) {
    uint32_t v = b.global_variable(b.pointer_type(spv::StorageClass::Private, t_u64), spv::StorageClass::Private);
    b.name(v, name);
    return v;
  };
  std::string prefix = "param" + std::to_string(param) + "_region_";
  ParamRegion region{var(prefix + "base"), var(prefix + "size"), var(prefix + "device")};
  return param_regions.emplace(param, region).first->second;
}

uint32_t KernelContext::workgroup_size_constant() {
  if (workgroup_size_id != 0) return workgroup_size_id;
  uint32_t sizes[] = {b.spec_const_u32(64, 0), b.spec_const_u32(1, 1), b.spec_const_u32(1, 2)};
  std::copy(std::begin(sizes), std::end(sizes), workgroup_size_components);
  workgroup_size_id = b.spec_const_composite(t_uvec3(), sizes);
  b.decorate(workgroup_size_id, spv::Decoration::BuiltIn, {uint32_t(spv::BuiltIn::WorkgroupSize)});
  return workgroup_size_id;
}

uint32_t KernelContext::workgroup_at_most(uint32_t invocations) {
  auto found = workgroup_at_most_ids.find(invocations);
  if (found != workgroup_at_most_ids.end()) return found->second;
  workgroup_size_constant();
  const uint32_t* s = workgroup_size_components;
  uint32_t xy_operands[] = {s[0], s[1]};
  uint32_t xy = b.spec_const_op(t_u32, spv::Op::OpIMul, xy_operands);
  uint32_t xyz_operands[] = {xy, s[2]};
  uint32_t xyz = b.spec_const_op(t_u32, spv::Op::OpIMul, xyz_operands);
  uint32_t compare[] = {xyz, b.const_u32(invocations)};
  uint32_t id = b.spec_const_op(t_bool, spv::Op::OpULessThanEqual, compare);
  workgroup_at_most_ids.emplace(invocations, id);
  return id;
}

uint32_t KernelContext::index_dims() {
  if (index_dims_id == 0) {
    index_dims_id = b.spec_const_u32(3, abi::kSpecIndexDims);
    b.name(index_dims_id, "index_dims");
  }
  return index_dims_id;
}

uint32_t KernelContext::param_proven(uint32_t param) {
  auto found = param_proven_ids.find(param);
  if (found != param_proven_ids.end()) return found->second;
  if (proven_params_id == 0) {
    proven_params_id = b.spec_const_u32(0, abi::kSpecProvenParams);
    b.name(proven_params_id, "proven_params");
  }
  uint32_t bit_operands[] = {proven_params_id, b.const_u32(param < 32 ? uint32_t(1) << param : 0)};
  uint32_t bit = b.spec_const_op(t_u32, spv::Op::OpBitwiseAnd, bit_operands);
  uint32_t set_operands[] = {bit, b.const_u32(0)};
  uint32_t id = b.spec_const_op(t_bool, spv::Op::OpINotEqual, set_operands);
  param_proven_ids.emplace(param, id);
  return id;
}

}  // namespace wasmgpu::spirv
