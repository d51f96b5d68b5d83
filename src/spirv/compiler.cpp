// compile_kernel: the driver. Checks the export, collects the reachable
// functions, sizes the stack, lowers every function, writes `main` (the
// kernel ABI of abi/launch_abi.h) and validates the result.
#include "spirv/compiler.h"

#include "abi/launch_abi.h"
#include "spirv/call_graph.h"
#include "spirv/function_lowering.h"
#include "spirv/kernel_context.h"
#include "spirv/module_builder.h"
#include "spirv/runtime_helpers.h"
#include "spirv/stack_analysis.h"

namespace wasmgpu::spirv {

namespace {

using wasm::ValType;
using Op = spv::Op;

bool is_kernel_scalar(ValType type) {
  return type == ValType::I32 || type == ValType::I64 || type == ValType::F32 || type == ValType::F64;
}

// `main`: reads the push constants, skips invocations past the launch's
// count, sets the Private ABI variables, loads the arguments from the
// LaunchBlock and calls the kernel.
uint32_t emit_main(KernelContext& k, uint32_t kernel_index) {
  ModuleBuilder& b = k.b;
  uint32_t main_id = b.fresh_id();
  b.name(main_id, "main");
  b.entry_point(main_id, "main");

  uint32_t uvec3 = b.vector_type(k.t_u32, 3);
  uint32_t sizes[] = {b.spec_const_u32(64, 0), b.spec_const_u32(1, 1), b.spec_const_u32(1, 2)};
  uint32_t workgroup_size = b.spec_const_composite(uvec3, sizes);
  b.decorate(workgroup_size, spv::Decoration::BuiltIn, {uint32_t(spv::BuiltIn::WorkgroupSize)});

  uint32_t global_id_var = b.global_variable(b.pointer_type(spv::StorageClass::Input, uvec3),
                                             spv::StorageClass::Input);
  b.decorate(global_id_var, spv::Decoration::BuiltIn, {uint32_t(spv::BuiltIn::GlobalInvocationId)});
  b.name(global_id_var, "gl_GlobalInvocationID");

  uint32_t members[] = {k.t_u64, k.t_u32, k.t_u32};
  uint32_t push_block = b.unique_struct_type(members);
  b.decorate(push_block, spv::Decoration::Block);
  b.member_decorate(push_block, 0, spv::Decoration::Offset, {abi::kPushLaunchBlock});
  b.member_decorate(push_block, 1, spv::Decoration::Offset, {abi::kPushBaseIndex});
  b.member_decorate(push_block, 2, spv::Decoration::Offset, {abi::kPushCount});
  b.name(push_block, "PushConstants");
  uint32_t push_var = b.global_variable(b.pointer_type(spv::StorageClass::PushConstant, push_block),
                                        spv::StorageClass::PushConstant);

  FunctionBuilder f(b, main_id, k.t_void, {});
  auto push_member = [&](uint32_t member, uint32_t type) {
    uint32_t pointer = f.op(Op::OpAccessChain, b.pointer_type(spv::StorageClass::PushConstant, type),
                            {push_var, b.const_u32(member)});
    return f.load(type, pointer);
  };
  uint32_t launch_block = push_member(0, k.t_u64);
  uint32_t base_index = push_member(1, k.t_u32);
  uint32_t count = push_member(2, k.t_u32);
  uint32_t global_x = f.op(Op::OpCompositeExtract, k.t_u32, {f.load(uvec3, global_id_var), 0});
  uint32_t index = f.op(Op::OpIAdd, k.t_u32, {base_index, global_x});
  f.if_else(f.op(Op::OpUGreaterThanEqual, k.t_bool, {index, count}), [&] { f.return_(); });

  f.store(k.launch_block_var, launch_block);
  f.store(k.invocation_index_var, index);
  f.store(k.stack_slot_var, global_x);

  const wasm::FuncType& type = k.module.function_type(kernel_index);
  std::vector<uint32_t> operands{k.function_ids.at(kernel_index), index};
  for (size_t i = 1; i < type.params.size(); ++i) {
    uint32_t offset = abi::kLaunchHeaderSize + abi::kArgSlotSize * uint32_t(i - 1);
    uint32_t address = f.op(Op::OpIAdd, k.t_u64, {launch_block, b.const_u64(offset)});
    bool wide = type.params[i] == ValType::I64 || type.params[i] == ValType::F64;
    uint32_t raw_type = wide ? k.t_u64 : k.t_u32;
    uint32_t raw = f.load_aligned(raw_type, k.device_pointer(f, address, raw_type), wide ? 8 : 4);
    uint32_t value_type = k.value_type(type.params[i]);
    operands.push_back(value_type == raw_type ? raw : f.op(Op::OpBitcast, value_type, {raw}));
  }
  f.op(Op::OpFunctionCall, k.t_void, operands);
  f.return_();
  f.finish();
  return main_id;
}

}  // namespace

std::string kernel_signature_problem(const wasm::Module& module, std::string_view export_name) {
  std::string name(export_name);
  const wasm::Export* found = nullptr;
  for (const wasm::Export& e : module.exports)
    if (e.name == export_name) found = &e;
  if (!found) return "the module has no export named '" + name + "'";
  if (found->kind != wasm::ExternalKind::Func)
    return "'" + name + "' is a " + wasm::to_string(found->kind) + ", not a function";
  if (found->index >= module.total_functions()) return "'" + name + "' names a function that does not exist";
  if (module.imported_function(found->index))
    return "'" + name + "' is an imported function, which cannot run on the GPU";
  const wasm::FuncType& type = module.function_type(found->index);
  if (type.params.empty())
    return "'" + name + "' takes no parameters; a kernel's first parameter is the i32 invocation index";
  if (type.params[0] != ValType::I32)
    return "'" + name + "' takes " + wasm::to_string(type.params[0]) +
           " first; a kernel's first parameter is the i32 invocation index";
  if (!type.results.empty())
    return "'" + name + "' returns values; a kernel returns nothing and writes results through pointers";
  for (size_t i = 1; i < type.params.size(); ++i)
    if (!is_kernel_scalar(type.params[i]))
      return "parameter " + std::to_string(i) + " of '" + name + "' is " + wasm::to_string(type.params[i]) +
             "; kernel parameters are i32, i64, f32 or f64";
  return {};
}

Result<CompiledKernel> compile_kernel(const wasm::Module& module, std::string_view export_name,
                                      const CompileOptions& options) {
  if (std::string problem = kernel_signature_problem(module, export_name); !problem.empty())
    return make_error("cannot compile kernel: " + problem);
  uint32_t kernel_index = module.find_export(export_name, wasm::ExternalKind::Func)->index;
  WASMGPU_ASSIGN_OR_RETURN(CallGraph graph, build_call_graph(module, kernel_index));
  StackLayout stack = analyse_stack(module, graph);

  ModuleBuilder b;
  b.capability(spv::Capability::Shader);
  b.capability(spv::Capability::PhysicalStorageBufferAddresses);
  KernelContext k(module, b, stack);
  RuntimeHelpers helpers(k);
  k.helpers = &helpers;

  auto private_var = [&](uint32_t type, const char* name, uint32_t initializer = 0) {
    uint32_t var = b.global_variable(b.pointer_type(spv::StorageClass::Private, type),
                                     spv::StorageClass::Private, initializer);
    b.name(var, name);
    return var;
  };
  k.trapped_var = private_var(k.t_bool, "trapped", b.const_bool(false));
  k.invocation_index_var = private_var(k.t_u32, "invocation_index");
  k.stack_slot_var = private_var(k.t_u32, "stack_slot");
  k.launch_block_var = private_var(k.t_u64, "launch_block");
  if (stack.stack_pointer) {
    // Each invocation's stack pointer starts at the top of its own stack.
    uint32_t sp = private_var(k.t_u32, "__stack_pointer", b.const_u32(stack.stack_hi));
    k.global_vars.emplace(*stack.stack_pointer, sp);
  }

  for (uint32_t function : graph.functions) k.function_ids.emplace(function, b.fresh_id());
  for (uint32_t function : graph.functions) {
    FunctionLowering lowering(k, function);
    WASMGPU_TRY(lowering.lower());
  }
  uint32_t main_id = emit_main(k, kernel_index);
  helpers.emit_bodies();

  if (k.uses_memory) {
    b.uint_type(8);  // declares Int8
    b.capability(spv::Capability::StorageBuffer8BitAccess);
  }
  // wasm needs IEEE NaN, infinity and signed-zero behaviour and
  // round-to-nearest-even. Subnormals cannot be requested on the devices we
  // target (architecture notes), so DenormPreserve is not asked for.
  b.capability(spv::Capability::SignedZeroInfNanPreserve);
  b.capability(spv::Capability::RoundingModeRTE);
  for (uint32_t width : {32u, 64u}) {
    if (width == 64 && !k.uses_float64) continue;
    b.execution_mode(main_id, spv::ExecutionMode::SignedZeroInfNanPreserve, {width});
    b.execution_mode(main_id, spv::ExecutionMode::RoundingModeRTE, {width});
  }

  CompiledKernel result;
  KernelInfo& info = result.info;
  info.export_name = std::string(export_name);
  info.function_index = kernel_index;
  const wasm::FuncType& type = module.function_type(kernel_index);
  info.params.assign(type.params.begin() + 1, type.params.end());
  uint64_t pages = 0;
  if (!module.memories.empty()) pages = module.memories[0].limits.min;
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) pages = import.memory.limits.min;
  info.memory_bytes = pages * 65536;
  if (stack.slot_size != 0) {
    info.stack_hi = stack.stack_hi;
    info.stack_window_lo = stack.window_lo;
    info.stack_slot_size = stack.slot_size;
  }
  info.uses_float64 = k.uses_float64;
  info.uses_int8_storage = k.uses_memory;
  info.compiled_functions = uint32_t(graph.functions.size());
  result.words = b.assemble();
  if (options.validate) WASMGPU_TRY(validate(result.words));
  return result;
}

}  // namespace wasmgpu::spirv
