// compile_kernel: the driver. Checks the export, collects the reachable
// functions, sizes the stack, lowers every function, writes `main` (the
// kernel ABI of abi/launch_abi.h) and validates the result.
#include "spirv/compiler.h"

#include <functional>
#include <set>

#include "abi/launch_abi.h"
#include "frontend/call_graph.h"
#include "spirv/float_exact.h"
#include "frontend/front_end_facts.h"
#include "frontend/kernel_signature.h"
#include "frontend/shared_memory.h"
#include "spirv/function_lowering.h"
#include "spirv/images.h"
#include "spirv/inline_budget.h"
#include "frontend/instance_state.h"
#include "spirv/intrinsics.h"
#include "spirv/lowerable.h"
#include "spirv/kernel_context.h"
#include "spirv/module_builder.h"
#include "spirv/recursive_component.h"
#include "spirv/runtime_helpers.h"
#include "frontend/stack_analysis.h"
#include "frontend/table.h"
#include "spirv/workgroup_memory.h"

namespace wasmgpu::spirv {

namespace {

using wasm::ValType;
using Op = spv::Op;

bool is_kernel_scalar(ValType type) {
  return type == ValType::I32 || type == ValType::I64 || type == ValType::F32 || type == ValType::F64;
}

// What `main` does once the ABI variables are set: given the invocation
// index and the LaunchBlock address (u32, u64).
constexpr uint32_t kPushHeaderMembers = AbiVariables::kPushHeaderMembers;
constexpr uint32_t kPushCopyWords = (abi::kPushConstantsSize - abi::kPushArgsCopy) / 4;

// Member `member` of the push-constant block (declared by emit_main).
Id push_member(KernelContext& k, FunctionBuilder& f, uint32_t member, Id type) {
  Id index = k.b.const_u32(member);
  Id pointer = f.op(Op::OpAccessChain, k.b.pointer_type(spv::StorageClass::PushConstant, type),
                    {k.abi.push_constants_var, index});
  return f.load(type, pointer);
}

using MainBody = std::function<void(KernelContext&, FunctionBuilder&, Id index, Id launch_block)>;

// `main`: reads the push constants, skips invocations past the launch's
// count, sets the Private ABI variables, then runs `body` (for a kernel:
// loads the arguments from the LaunchBlock and calls the kernel).
Id emit_main(KernelContext& k, const MainBody& body) {
  ModuleBuilder& b = k.b;
  Id main_id = b.fresh_id();
  b.name(main_id, "main");
  b.entry_point(main_id, "main");

  const Id uvec3 = k.types.uvec3();
  Id workgroup_size = k.spec.workgroup_size();
  Id global_id_var = k.abi.builtin_input(spv::BuiltIn::GlobalInvocationId, uvec3);
  b.name(global_id_var, "gl_GlobalInvocationID");
  Id workgroups_var = k.abi.builtin_input(spv::BuiltIn::NumWorkgroups, uvec3);

  // The header's four fields, then the argument copy as 4-byte words
  // (abi/launch_abi.h); 8-byte values there are read as two words.
  std::vector<Id> members{k.types.u64, k.types.u32, k.types.u32, k.types.u64};
  members.resize(kPushHeaderMembers + kPushCopyWords, k.types.u32);
  Id push_block = b.unique_struct_type(members);
  b.decorate(push_block, spv::Decoration::Block);
  b.member_decorate(push_block, 0, spv::Decoration::Offset, {abi::kPushLaunchBlock});
  b.member_decorate(push_block, 1, spv::Decoration::Offset, {abi::kPushBaseIndex});
  b.member_decorate(push_block, 2, spv::Decoration::Offset, {abi::kPushCount});
  b.member_decorate(push_block, 3, spv::Decoration::Offset, {abi::kPushMemoryAddress});
  for (uint32_t word = 0; word < kPushCopyWords; ++word)
    b.member_decorate(push_block, kPushHeaderMembers + word, spv::Decoration::Offset, {abi::kPushArgsCopy + 4 * word});
  b.name(push_block, "PushConstants");
  k.abi.push_constants_var =
      b.global_variable(b.pointer_type(spv::StorageClass::PushConstant, push_block), spv::StorageClass::PushConstant);

  FunctionBuilder f(b, main_id, k.types.void_type, {});
  Id launch_block = push_member(k, f, 0, k.types.u64);
  Id base_index = push_member(k, f, 1, k.types.u32);
  Id count = push_member(k, f, 2, k.types.u32);
  // The invocation index is the linearised global id (x fastest) plus the
  // dispatch's base: a 1-D launch is split into dispatches along x only. The
  // y and z terms are selected by specialization constants (abi::index_dims),
  // so that the driver drops them from launches whose y and z are always 0.
  Id global_id = f.load(uvec3, global_id_var);
  Id grid = f.op(Op::OpIMul, uvec3, {f.load(uvec3, workgroups_var), workgroup_size});
  auto component = [&](Id vector, uint32_t i) {
    return f.op(Op::OpCompositeExtract, k.types.u32, {vector, literal(i)});
  };
  Id dims = k.spec.index_dims();
  auto extends_over = [&](uint32_t d) {
    const Operand operands[] = {dims, b.const_u32(d)};
    return b.spec_const_op(k.types.bool_type, Op::OpUGreaterThanEqual, operands);
  };
  auto term = [&](uint32_t d, Id value) {
    return f.op(Op::OpSelect, k.types.u32, {extends_over(d), value, b.const_u32(0)});
  };
  Id plane = f.op(Op::OpIMul, k.types.u32, {component(grid, 0), component(grid, 1)});
  Id y_term = term(2, f.op(Op::OpIMul, k.types.u32, {component(global_id, 1), component(grid, 0)}));
  Id z_term = term(3, f.op(Op::OpIMul, k.types.u32, {component(global_id, 2), plane}));
  Id global_x =
      f.op(Op::OpIAdd, k.types.u32, {component(global_id, 0), f.op(Op::OpIAdd, k.types.u32, {y_term, z_term})});
  Id index = f.op(Op::OpIAdd, k.types.u32, {base_index, global_x});
  // Invocations past the count exist only where abi::kSpecMayOverrun says so.
  Id may_overrun = b.spec_const_u32(1, abi::kSpecMayOverrun);
  b.name(may_overrun, "may_overrun");
  const Operand overrun_operands[] = {may_overrun, b.const_u32(0)};
  Id checks_count = b.spec_const_op(k.types.bool_type, Op::OpINotEqual, overrun_operands);
  Id past_count = f.op(Op::OpUGreaterThanEqual, k.types.bool_type, {index, count});
  f.if_else(f.op(Op::OpLogicalAnd, k.types.bool_type, {checks_count, past_count}), [&] { f.return_(); });

  f.store(k.abi.launch_block_var, launch_block);
  f.store(k.abi.invocation_index_var, index);
  f.store(k.abi.stack_slot_var, global_x);
  f.store(k.abi.base_index_var, base_index);
  f.store(k.abi.invocation_count_var, count);
  if (k.instance_state) {
    Id address = f.op(Op::OpIAdd, k.types.u64, {launch_block, b.const_u64(abi::kLaunchInstanceState)});
    f.store(k.abi.instance_state_var, f.load_aligned(k.types.u64, k.device_pointer(f, address, k.types.u64), 8));
  }
  k.helpers->set_memory_base(f);
  body(k, f, index, launch_block);
  f.return_();
  f.finish();
  return main_id;
}

// A value of `type` from the argument copy in the push constants, at byte
// `offset` (abi::push_layout).
Id load_push_value(KernelContext& k, FunctionBuilder& f, uint32_t offset, ValType type) {
  const uint32_t member = kPushHeaderMembers + (offset - abi::kPushArgsCopy) / 4;
  const bool wide = type == ValType::I64 || type == ValType::F64;
  Id raw = push_member(k, f, member, k.types.u32);
  if (wide) {
    Id high = f.op(Op::OpUConvert, k.types.u64, {push_member(k, f, member + 1, k.types.u32)});
    high = f.op(Op::OpShiftLeftLogical, k.types.u64, {high, k.b.const_u32(32)});
    raw = f.op(Op::OpBitwiseOr, k.types.u64, {f.op(Op::OpUConvert, k.types.u64, {raw}), high});
  }
  Id value_type = k.types.value_type(type);
  return value_type == (wide ? k.types.u64 : k.types.u32) ? raw : f.op(Op::OpBitcast, value_type, {raw});
}

// A value of `type` from the 8-byte slot at `base` + `offset` (i32/f32 in its low 4 bytes).
Id load_slot(KernelContext& k, FunctionBuilder& f, Id base, uint32_t offset, ValType type) {
  Id address = f.op(Op::OpIAdd, k.types.u64, {base, k.b.const_u64(offset)});
  bool wide = type == ValType::I64 || type == ValType::F64;
  Id raw_type = wide ? k.types.u64 : k.types.u32;
  Id raw = f.load_aligned(raw_type, k.device_pointer(f, address, raw_type), wide ? 8 : 4);
  Id value_type = k.types.value_type(type);
  return value_type == raw_type ? raw : f.op(Op::OpBitcast, value_type, {raw});
}

// Writes `value` of `type` to the whole 8-byte slot at `base` + `offset`.
void store_slot(KernelContext& k, FunctionBuilder& f, Id base, uint32_t offset, ValType type, Id value) {
  Id address = f.op(Op::OpIAdd, k.types.u64, {base, k.b.const_u64(offset)});
  if (type == ValType::F32) value = f.op(Op::OpBitcast, k.types.u32, {value});
  if (type == ValType::F64) value = f.op(Op::OpBitcast, k.types.u64, {value});
  if (type == ValType::I32 || type == ValType::F32) value = f.op(Op::OpUConvert, k.types.u64, {value});
  f.store_aligned(k.device_pointer(f, address, k.types.u64), value, 8);
}

void emit_kernel_call(KernelContext& k, FunctionBuilder& f, uint32_t kernel_index, Id index, Id launch_block) {
  const wasm::FuncType& type = k.module.function_type(kernel_index);
  const std::span<const ValType> args(type.params.begin() + 1, type.params.end());
  const abi::PushLayout push = abi::push_layout(push_arg_widths(args));
  // The ParamRegions the lowering asked for (abi/launch_abi.h): from the
  // push constants when they fit there, else from the LaunchBlock.
  const uint32_t arg_count = uint32_t(args.size());
  for (const auto& [param, region] : k.abi.param_regions()) {
    const std::optional<uint32_t> pushed = push.region[param - 1];
    uint32_t entry = abi::kLaunchHeaderSize + abi::kArgSlotSize * arg_count + abi::kParamRegionStride * (param - 1);
    auto field = [&](Id var, uint32_t offset) {
      if (pushed) return f.store(var, load_push_value(k, f, *pushed + offset, ValType::I64));
      Id address = f.op(Op::OpIAdd, k.types.u64, {launch_block, k.b.const_u64(entry + offset)});
      f.store(var, f.load_aligned(k.types.u64, k.device_pointer(f, address, k.types.u64), 8));
    };
    field(region.wasm_base, abi::kParamRegionWasmBase);
    field(region.size, abi::kParamRegionSize);
    field(region.device_address, abi::kParamRegionDeviceAddress);
  }
  std::vector<Id> operands{k.function_ids.at(kernel_index), index};
  for (size_t i = 0; i < args.size(); ++i) {
    if (push.value[i]) {
      operands.push_back(load_push_value(k, f, *push.value[i], args[i]));
      continue;
    }
    uint32_t offset = abi::kLaunchHeaderSize + abi::kArgSlotSize * uint32_t(i);
    operands.push_back(load_slot(k, f, launch_block, offset, args[i]));
  }
  f.op(Op::OpFunctionCall, k.types.void_type, operands);
}

// The SPIR-V back end: the shader of the front end's `facts` about `module`.
Status compile_shader(const wasm::Module& module, const FrontEndFacts& facts, const CompileOptions& options,
                      std::vector<uint32_t>& words, KernelInfo& info, const MainBody& body);

// Bytes of the module memory at instantiation (its minimum size).
uint64_t initial_memory_bytes(const wasm::Module& module) {
  uint64_t pages = 0;
  if (!module.memories.empty()) pages = module.memories[0].limits.min;
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) pages = import.memory.limits.min;
  return pages * abi::kPageSize;
}

}  // namespace

std::vector<abi::ArgWidth> push_arg_widths(std::span<const wasm::ValType> args) {
  std::vector<abi::ArgWidth> widths;
  for (ValType type : args)
    widths.push_back(type == ValType::I32   ? abi::ArgWidth::Pointer
                     : type == ValType::F32 ? abi::ArgWidth::Word
                                            : abi::ArgWidth::Double);
  return widths;
}

Result<CompiledKernel> compile_kernel(const wasm::Module& module, std::string_view export_name,
                                      const CompileOptions& options) {
  if (Status signature = frontend::check_kernel_signature(module, export_name); !signature.ok())
    return make_error(ErrorCode::Compile, "cannot compile kernel: " + signature.error().message);
  uint32_t kernel_index = module.find_export(export_name, wasm::ExternalKind::Func)->index;
  CompiledKernel result;
  uint32_t roots[] = {kernel_index};
  // The front end, once; then the SPIR-V back end.
  WASMGPU_ASSIGN_OR_RETURN(FrontEndFacts facts, analyse_module(module, roots, kernel_index, limits()));
  WASMGPU_TRY(compile_shader(module, facts, options, result.words, result.info,
                             [&](KernelContext& k, FunctionBuilder& f, Id index, Id launch_block) {
                               emit_kernel_call(k, f, kernel_index, index, launch_block);
                             }));
  KernelInfo& info = result.info;
  info.export_name = std::string(export_name);
  info.function_index = kernel_index;
  const wasm::FuncType& type = module.function_type(kernel_index);
  info.params.assign(type.params.begin() + 1, type.params.end());
  return result;
}

namespace {

// Everything a shader needs around its `main`: the functions the front end
// found reachable, lowered with its facts, the helpers, capabilities and
// module-level info.
Status compile_shader(const wasm::Module& module, const FrontEndFacts& facts, const CompileOptions& options,
                      std::vector<uint32_t>& words, KernelInfo& info, const MainBody& body) {
  const IndirectCallTargets* usable_targets = facts.indirect_targets ? &*facts.indirect_targets : nullptr;
  const CallGraph& graph = facts.graph;
  const StackLayout& stack = facts.stack;

  ModuleBuilder b;
  b.capability(spv::Capability::Shader);
  b.capability(spv::Capability::PhysicalStorageBufferAddresses);
  KernelContext k(module, b, stack);
  k.indirect_targets = usable_targets;
  k.stack_slot_size = stack.slot_size;
  k.instance_state = module_uses_instance_state(module);
  k.layout = instance_layout(module);
  RuntimeHelpers helpers(k);
  k.helpers = &helpers;
  ExactFloat exact_float(k);
  if (options.float_mode == FloatMode::Exact) k.exact_float = &exact_float;
  k.subgroup_vote = options.subgroup_vote;
  k.loop_exit_breaks = options.loop_exit_breaks;
  k.f64_subnormals_native = options.f64_subnormals_native;
  k.trap_sites = options.trap_sites;

  auto private_var = [&](Id type, const char* name, Id initializer = Id()) {
    const Id var =
        b.global_variable(b.pointer_type(spv::StorageClass::Private, type), spv::StorageClass::Private, initializer);
    b.name(var, name);
    return var;
  };
  k.abi.trapped_var = private_var(k.types.bool_type, "trapped", b.const_bool(false));
  k.abi.invocation_index_var = private_var(k.types.u32, "invocation_index");
  k.abi.stack_slot_var = private_var(k.types.u32, "stack_slot");
  k.abi.launch_block_var = private_var(k.types.u64, "launch_block");
  k.abi.trap_kind_var = private_var(k.types.u32, "trap_kind", b.const_u32(0));
  k.abi.instance_state_var = private_var(k.types.u64, "instance_state", b.const_u64(0));
  k.abi.memory_base_var = private_var(k.types.u64, "memory_base", b.const_u64(0));
  k.abi.base_index_var = private_var(k.types.u32, "base_index");
  k.abi.invocation_count_var = private_var(k.types.u32, "invocation_count");
  if (k.trap_sites) {
    k.abi.trap_site_var = private_var(k.types.u32, "trap_site", b.const_u32(abi::kNoTrapSite));
    k.abi.trapped_site_var = private_var(k.types.u32, "trapped_site", b.const_u32(abi::kNoTrapSite));
    k.abi.trapped_address_var = private_var(k.types.u64, "trapped_address", b.const_u64(abi::kNoTrapAddress));
    k.abi.trapped_bytes_var = private_var(k.types.u32, "trapped_bytes", b.const_u32(0));
  }
  WASMGPU_ASSIGN_OR_RETURN(frontend::SharedMemory shared, frontend::find_shared_memory(module));
  // memory.copy between memory 0 and another memory moves device bytes, which
  // a workgroup-shared variable (in memory 0's address range) does not have.
  if (shared.hi > shared.lo && module.total_memories() > 1)
    return make_error(ErrorCode::Unsupported, "the module has workgroup-shared variables (WASMGPU_SHARED) and " +
                                                  std::to_string(module.total_memories()) +
                                                  " memories: shared variables are supported with one memory only");
  k.shared = SharedMemory{shared};
  declare_shared_memory(k);
  k.proofs.address_facts.initial_memory_bytes = initial_memory_bytes(module);
  if (stack.slot_size != 0) {
    k.proofs.address_facts.stack_lo = stack.stack_lo;
    k.proofs.address_facts.stack_hi = stack.stack_hi;
  }
  if (k.shared.variable) {
    k.proofs.address_facts.shared_lo = k.shared.lo;
    k.proofs.address_facts.shared_hi = k.shared.hi;
  }
  Intrinsics intrinsics(k);
  k.intrinsics = &intrinsics;
  Images images(k);
  k.images = &images;
  if (stack.stack_pointer) {
    // Each invocation's stack pointer starts at the top of its own stack.
    Id sp = private_var(k.types.u32, "__stack_pointer", b.const_u32(stack.stack_hi));
    k.abi.global_vars.emplace(*stack.stack_pointer, sp);
  }

  // The kernel's parameters hold the launch's arguments (when it is not
  // re-entered recursively): accesses through them may take the Parameter paths.
  if (facts.kernel_function) k.abi.kernel_function = *facts.kernel_function;
  for (uint32_t function : graph.functions) k.function_ids.emplace(function, b.fresh_id());
  std::set<uint32_t> lowered_components;
  for (uint32_t function : graph.functions) {
    auto component = graph.component_of.find(function);
    if (component == graph.component_of.end()) {
      FunctionLowering lowering(k, function);
      WASMGPU_TRY(lowering.lower(*facts.function(function)));
    } else if (lowered_components.insert(component->second).second) {
      WASMGPU_ASSIGN_OR_RETURN(
          uint32_t bytes,
          lower_recursive_component(k, graph.recursive_components[component->second], options.max_call_depth));
      info.call_stack_bytes += bytes;
    }
  }
  k.current_function = UINT32_MAX;
  Id main_id = emit_main(k, body);
  intrinsics.emit_bodies();
  images.emit_bodies();
  helpers.emit_bodies();
  exact_float.emit_bodies();

  if (k.uses_memory) {
    b.uint_type(8);  // declares Int8
    b.capability(spv::Capability::StorageBuffer8BitAccess);
  }
  // Exact mode needs IEEE NaN, infinity and signed-zero behaviour and
  // round-to-nearest-even. Subnormals cannot be requested on the devices we
  // target (architecture notes), so DenormPreserve is not asked for. Fast
  // mode asks for round-to-nearest-even only: it promises the device's NaNs
  // and signed zeros, and with both modes NVIDIA's compiler no longer fuses
  // a*b + c into one instruction (SGEMM ran at 0.55 of its GLSL twin with
  // both, 0.71 without either one; docs/float-modes.md). Without RTE the
  // same driver divides approximately, so RTE stays.
  const bool preserve_specials = options.float_mode == FloatMode::Exact;
  if (preserve_specials) b.capability(spv::Capability::SignedZeroInfNanPreserve);
  b.capability(spv::Capability::RoundingModeRTE);
  for (uint32_t width : {32u, 64u}) {
    if (width == 64 && !k.types.uses_float64) continue;
    if (preserve_specials) b.execution_mode(main_id, spv::ExecutionMode::SignedZeroInfNanPreserve, {width});
    b.execution_mode(main_id, spv::ExecutionMode::RoundingModeRTE, {width});
  }

  info.memory_bytes = k.proofs.address_facts.initial_memory_bytes;
  info.memory_access_paths = k.access_paths;
  info.launch_proof = std::move(k.proofs.launch_proof);
  if (stack.slot_size != 0) {
    info.stack_hi = stack.stack_hi;
    info.stack_window_lo = stack.window_lo;
  }
  info.stack_slot_size = k.stack_slot_size;
  info.float_mode = options.float_mode;
  info.uses_float64 = k.types.uses_float64;
  info.float64_function = k.types.float64_function;
  info.uses_int8_storage = k.uses_memory;
  info.uses_instance_state = k.instance_state;
  info.shared_memory_bytes = k.shared.hi - k.shared.lo;
  info.uses_barriers = k.uses_barriers;
  info.uses_images = images.used();
  info.compiled_functions = uint32_t(graph.functions.size());
  words = b.assemble();
  InlineBudgetResult inlining = apply_inline_budget(words, options.inline_budget);
  info.inlined_instructions = inlining.inlined_instructions;
  info.instructions_after_inlining = inlining.instructions_after;
  info.inlined_blocks = inlining.inlined_blocks;
  info.blocks_after_inlining = inlining.blocks_after;
  info.functions_kept_out_of_line = inlining.functions_kept_out_of_line;
  if (options.validate) WASMGPU_TRY(validate(words));
  return {};
}

}  // namespace

// The slot types of a call's values: a v128 travels as two i64 slots, its
// low 8 bytes first (CallInfo).
static std::vector<ValType> call_slots(const std::vector<ValType>& types) {
  std::vector<ValType> slots;
  for (ValType t : types) {
    if (t == ValType::V128)
      slots.insert(slots.end(), {ValType::I64, ValType::I64});
    else
      slots.push_back(t);
  }
  return slots;
}

// A call shader's `main`: an OpSwitch on the CallRecord's function position,
// one arm per export (load params, call, store results unless trapped), then
// the status: returned, or trapped + the first trap's kind.
Result<CompiledCalls> compile_calls(const wasm::Module& module, std::span<const std::string> exports,
                                    const CompileOptions& options) {
  CompiledCalls result;
  std::vector<uint32_t> roots;
  uint32_t max_params = 0, max_results = 0;
  for (const std::string& name : exports) {
    const wasm::Export* found = module.find_export(name, wasm::ExternalKind::Func);
    if (!found)
      return make_error(ErrorCode::NotFound,
                        "cannot compile calls: the module has no exported function '" + name + "'");
    if (module.imported_function(found->index))
      return make_error(ErrorCode::Compile,
                        "cannot compile calls: '" + name + "' is an imported function, which cannot run on the GPU");
    const wasm::FuncType& type = module.function_type(found->index);
    for (const auto* list : {&type.params, &type.results})
      for (ValType t : *list)
        if (!is_kernel_scalar(t) && t != ValType::V128)
          return make_error(ErrorCode::Compile, "cannot compile calls: '" + name + "' takes or returns " +
                                                    wasm::to_string(t) +
                                                    "; calls pass i32, i64, f32, f64 and v128 only");
    CallInfo call;
    call.export_name = name;
    call.function_index = found->index;
    call.params = call_slots(type.params);
    call.results = call_slots(type.results);
    max_params = std::max(max_params, uint32_t(call.params.size()));
    max_results = std::max(max_results, uint32_t(call.results.size()));
    roots.push_back(found->index);
    result.calls.push_back(std::move(call));
  }
  auto body = [&](KernelContext& k, FunctionBuilder& f, Id index, Id launch_block) {
    ModuleBuilder& b = k.b;
    auto arg = [&](uint32_t slot, Id type) {
      return load_slot(k, f, launch_block, abi::kLaunchHeaderSize + abi::kArgSlotSize * slot,
                       type == k.types.u64 ? ValType::I64 : ValType::I32);
    };
    Id records = arg(abi::kCallArgRecords, k.types.u64);
    Id results = arg(abi::kCallArgResults, k.types.u64);
    Id index64 = f.op(Op::OpUConvert, k.types.u64, {index});
    auto record_of = [&](Id base, Id stride) {
      Id offset = f.op(Op::OpIMul, k.types.u64, {index64, f.op(Op::OpUConvert, k.types.u64, {stride})});
      return f.op(Op::OpIAdd, k.types.u64, {base, offset});
    };
    Id record = record_of(records, arg(abi::kCallArgCallStride, k.types.u32));
    Id result_record = record_of(results, arg(abi::kCallArgResultStride, k.types.u32));
    Id function = f.load_aligned(k.types.u32, k.device_pointer(f, record, k.types.u32), 4);

    Id merge = b.fresh_id(), unknown = b.fresh_id();
    std::vector<std::pair<uint32_t, Id>> cases;
    for (size_t i = 0; i < result.calls.size(); ++i) cases.emplace_back(uint32_t(i), b.fresh_id());
    f.selection_merge(merge);
    f.switch_(function, unknown, cases);
    for (size_t i = 0; i < result.calls.size(); ++i) {
      const CallInfo& call = result.calls[i];
      f.begin_block(cases[i].second);
      const wasm::FuncType& type = module.function_type(call.function_index);
      std::vector<Id> operands{k.function_ids.at(call.function_index)};
      uint32_t slot = 0;
      for (ValType t : type.params) {
        const uint32_t offset = abi::kCallRecordParams + abi::kArgSlotSize * slot;
        if (t == ValType::V128) {  // two i64 slots, the low half first
          const Id halves[] = {load_slot(k, f, record, offset, ValType::I64),
                               load_slot(k, f, record, offset + abi::kArgSlotSize, ValType::I64)};
          Id pair = f.op(Op::OpCompositeConstruct, b.vector_type(k.types.u64, 2), halves);
          operands.push_back(f.op(Op::OpBitcast, k.types.v128(), {pair}));
          slot += 2;
        } else {
          operands.push_back(load_slot(k, f, record, offset, t));
          slot += 1;
        }
      }
      Id value = f.op(Op::OpFunctionCall, k.types.result_type(type.results), operands);
      Id returned = f.op(Op::OpLogicalNot, k.types.bool_type, {k.helpers->trapped(f)});
      f.if_else(returned, [&] {
        uint32_t slot = 0;
        for (size_t r = 0; r < type.results.size(); ++r) {
          const ValType t = type.results[r];
          Id v = type.results.size() == 1
                     ? value
                     : f.op(Op::OpCompositeExtract, k.types.value_type(t), {value, literal(uint32_t(r))});
          const uint32_t offset = abi::kResultRecordValues + abi::kArgSlotSize * slot;
          if (t == ValType::V128) {
            Id halves = f.op(Op::OpBitcast, b.vector_type(k.types.u64, 2), {v});
            for (uint32_t h = 0; h < 2; ++h)
              store_slot(k, f, result_record, offset + abi::kArgSlotSize * h, ValType::I64,
                         f.op(Op::OpCompositeExtract, k.types.u64, {halves, literal(h)}));
            slot += 2;
          } else {
            store_slot(k, f, result_record, offset, t, v);
            slot += 1;
          }
        }
      });
      f.branch(merge);
    }
    // A function position outside the list: the call cannot happen, report it as unreachable.
    f.begin_block(unknown);
    k.helpers->trap(f, abi::TrapKind::Unreachable);
    f.branch(merge);
    f.begin_block(merge);
    Id trapped_status =
        f.op(Op::OpIAdd, k.types.u32, {f.load(k.types.u32, k.abi.trap_kind_var), b.const_u32(abi::kCallTrapped)});
    Id status =
        f.op(Op::OpSelect, k.types.u32, {k.helpers->trapped(f), trapped_status, b.const_u32(abi::kCallReturned)});
    f.store_aligned(k.device_pointer(f, result_record, k.types.u32), status, 4);
    // The site of the call's first trap: trap_site itself has moved on to
    // the last instruction the trapped invocation passed while winding down.
    Id second = k.trap_sites ? f.load(k.types.u32, k.abi.trapped_site_var) : b.const_u32(0);
    Id second_word = f.op(Op::OpIAdd, k.types.u64, {result_record, b.const_u64(4)});
    f.store_aligned(k.device_pointer(f, second_word, k.types.u32), second, 4);
    if (k.trap_sites) {
      f.if_else(k.helpers->trapped(f), [&] {
        auto word = [&](uint32_t offset, Id type) {
          return k.device_pointer(f, f.op(Op::OpIAdd, k.types.u64, {result_record, b.const_u64(offset)}), type);
        };
        Id address = f.load(k.types.u64, k.abi.trapped_address_var);
        f.store_aligned(word(abi::kResultRecordTrapAddress, k.types.u32), f.op(Op::OpUConvert, k.types.u32, {address}),
                        4);
        Id high = f.op(Op::OpShiftRightLogical, k.types.u64, {address, b.const_u64(32)});
        f.store_aligned(word(abi::kResultRecordTrapAddress + 4, k.types.u32), f.op(Op::OpUConvert, k.types.u32, {high}),
                        4);
        f.store_aligned(word(abi::kResultRecordTrapBytes, k.types.u32), f.load(k.types.u32, k.abi.trapped_bytes_var),
                        4);
      });
    }
  };
  WASMGPU_ASSIGN_OR_RETURN(FrontEndFacts facts, analyse_module(module, roots, std::nullopt, limits()));
  WASMGPU_TRY(compile_shader(module, facts, options, result.words, result.info, body));
  for (CallInfo& call : result.calls) call.has_side_effects = facts.side_effects.at(call.function_index);
  result.call_record_size = abi::kCallRecordParams + abi::kArgSlotSize * max_params;
  result.result_record_size = abi::kResultRecordValues + abi::kArgSlotSize * max_results;
  if (options.trap_sites)
    result.result_record_size = std::max(result.result_record_size, abi::kResultRecordTrapAccessSize);
  return result;
}

}  // namespace wasmgpu::spirv
