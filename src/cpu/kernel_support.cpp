#include "cpu/kernel_support.h"

#include <string>

#include "spirv/intrinsics.h"
#include "spirv/workgroup_memory.h"

namespace wasmgpu::cpu {

namespace {

using wasm::Opcode;

Error refuse(const wasm::Module& module, std::string_view kernel, uint32_t function, const std::string& why) {
  return make_error(ErrorCode::Unsupported, "the cpu device cannot run kernel '" + std::string(kernel) +
                                                "' yet: " + "function '" + module.function_name(function) + "' " + why +
                                                " (docs/cpu-device.md lists what it runs)");
}

// Why one instruction cannot run on the cpu device yet, or empty.
std::string unsupported_instruction(const wasm::Module& module, const wasm::Instr& instr,
                                    std::optional<uint32_t> stack_pointer) {
  const wasm::OpcodeInfo& info = wasm::info(instr.op);
  switch (info.cls) {
    case wasm::OpcodeClass::Vector: return "uses SIMD (" + std::string(info.text) + ")";
    case wasm::OpcodeClass::Atomic:
      if (info.access.kind == wasm::AccessKind::Wait)
        return "uses " + std::string(info.text) + " (an invocation cannot block)";
      break;
    case wasm::OpcodeClass::Table: return "uses tables (" + std::string(info.text) + ")";
    case wasm::OpcodeClass::Reference: return "uses references (" + std::string(info.text) + ")";
    default: break;
  }
  switch (instr.op) {
    case Opcode::CallIndirect: return "uses call_indirect";
    case Opcode::MemoryGrow:
    case Opcode::MemoryInit:
    case Opcode::DataDrop: return "uses " + std::string(info.text) + " (module instance state)";
    case Opcode::MemoryFill:
    case Opcode::MemoryCopy: return "uses bulk memory (" + std::string(info.text) + ")";
    case Opcode::GlobalGet:
    case Opcode::GlobalSet: {
      if (instr.imm0 == stack_pointer) return "";
      if (module.imported_global(instr.imm0)) return "reads an imported global";
      if (module.global_type(instr.imm0).is_mutable) return "uses a mutable global (module instance state)";
      return "";
    }
    case Opcode::Call:
      if (instr.imm0 < module.imported_functions && !cpu_intrinsic(module, instr.imm0)) {
        const wasm::Import* import = module.imported_function(instr.imm0);
        return "calls the import '" + import->module + "." + import->name + "' (images are not on the cpu device yet)";
      }
      return "";
    default: return "";
  }
}

// A global's initial value is a constant the lowering can fold.
bool constant_init(const wasm::Global& global) {
  if (global.init.instrs.size() != 2) return false;
  const Opcode op = global.init.instrs[0].op;
  return op == Opcode::I32Const || op == Opcode::I64Const || op == Opcode::F32Const || op == Opcode::F64Const;
}

}  // namespace

std::optional<CpuIntrinsic> cpu_intrinsic(const wasm::Module& module, uint32_t function_index) {
  const wasm::Import* import = module.imported_function(function_index);
  if (!import || import->module != "wasmgpu") return std::nullopt;
  // The signature is checked once, by the front end's table
  // (spirv::check_import_call); this table only maps names to lowerings.
  if (!spirv::check_import_call(module, function_index, function_index).ok()) return std::nullopt;
  struct Entry {
    std::string_view name;
    CpuIntrinsic intrinsic;
  };
  static constexpr Entry kIntrinsics[] = {
      {"global_id", CpuIntrinsic::GlobalId},
      {"local_id", CpuIntrinsic::LocalId},
      {"workgroup_id", CpuIntrinsic::WorkgroupId},
      {"workgroup_size", CpuIntrinsic::WorkgroupSize},
      {"workgroup_count", CpuIntrinsic::WorkgroupCount},
      {"local_index", CpuIntrinsic::LocalIndex},
      {"barrier", CpuIntrinsic::Barrier},
      {"memory_barrier", CpuIntrinsic::MemoryBarrier},
      {"workgroup_memory_barrier", CpuIntrinsic::MemoryBarrier},
      {"atomic_add_i32", CpuIntrinsic::AtomicAdd},
      {"atomic_sub_i32", CpuIntrinsic::AtomicSub},
      {"atomic_and_i32", CpuIntrinsic::AtomicAnd},
      {"atomic_or_i32", CpuIntrinsic::AtomicOr},
      {"atomic_xor_i32", CpuIntrinsic::AtomicXor},
      {"atomic_min_i32", CpuIntrinsic::AtomicMinS},
      {"atomic_max_i32", CpuIntrinsic::AtomicMaxS},
      {"atomic_min_u32", CpuIntrinsic::AtomicMinU},
      {"atomic_max_u32", CpuIntrinsic::AtomicMaxU},
      {"atomic_exchange_i32", CpuIntrinsic::AtomicExchange},
      {"atomic_compare_exchange_i32", CpuIntrinsic::AtomicCompareExchange},
      {"atomic_add_f32", CpuIntrinsic::AtomicAddF32},
      {"subgroup_size", CpuIntrinsic::SubgroupSize},
      {"subgroup_invocation_id", CpuIntrinsic::SubgroupInvocationId},
      {"subgroup_id", CpuIntrinsic::SubgroupId},
      {"subgroup_count", CpuIntrinsic::SubgroupCount},
      {"subgroup_broadcast_i32", CpuIntrinsic::SubgroupBroadcast},
      {"subgroup_broadcast_f32", CpuIntrinsic::SubgroupBroadcast},
      {"subgroup_shuffle_i32", CpuIntrinsic::SubgroupBroadcast},
      {"subgroup_shuffle_f32", CpuIntrinsic::SubgroupBroadcast},
      {"subgroup_ballot", CpuIntrinsic::SubgroupBallot},
      {"subgroup_all", CpuIntrinsic::SubgroupAll},
      {"subgroup_any", CpuIntrinsic::SubgroupAny},
      {"subgroup_add_i32", CpuIntrinsic::SubgroupAddI32},
      {"subgroup_add_f32", CpuIntrinsic::SubgroupAddF32},
      {"subgroup_min_i32", CpuIntrinsic::SubgroupMinS},
      {"subgroup_min_u32", CpuIntrinsic::SubgroupMinU},
      {"subgroup_min_f32", CpuIntrinsic::SubgroupMinF},
      {"subgroup_max_i32", CpuIntrinsic::SubgroupMaxS},
      {"subgroup_max_u32", CpuIntrinsic::SubgroupMaxU},
      {"subgroup_max_f32", CpuIntrinsic::SubgroupMaxF},
      {"subgroup_inclusive_add_i32", CpuIntrinsic::SubgroupInclusiveAddI32},
      {"subgroup_inclusive_add_f32", CpuIntrinsic::SubgroupInclusiveAddF32},
      {"subgroup_exclusive_add_i32", CpuIntrinsic::SubgroupExclusiveAddI32},
      {"subgroup_exclusive_add_f32", CpuIntrinsic::SubgroupExclusiveAddF32},
  };
  for (const Entry& entry : kIntrinsics)
    if (entry.name == import->name) return entry.intrinsic;
  return std::nullopt;
}

bool needs_fibers(const wasm::Module& module, const spirv::FrontEndFacts& facts) {
  for (uint32_t function : facts.graph.functions) {
    if (function < module.imported_functions) continue;
    for (const wasm::Instr& instr : module.functions[function - module.imported_functions].body) {
      if (instr.op != Opcode::Call) continue;
      const std::optional<CpuIntrinsic> intrinsic = cpu_intrinsic(module, instr.imm0);
      if (intrinsic && (*intrinsic == CpuIntrinsic::Barrier || is_cross_lane(*intrinsic))) return true;
    }
  }
  return false;
}

Status check_cpu_support(const wasm::Module& module, const spirv::FrontEndFacts& facts, std::string_view export_name) {
  const uint32_t kernel = facts.kernel_function.value_or(0);
  if (!facts.graph.recursive_components.empty())
    return refuse(module, export_name, facts.graph.recursive_components.front().front(),
                  "is recursive (call stacks are not on the cpu device yet)");
  Result<spirv::SharedMemory> shared = spirv::find_shared_memory(module);
  if (!shared.ok()) return shared.error();
  for (const wasm::Global& global : module.globals)
    if (!constant_init(global))
      return refuse(module, export_name, kernel, "is in a module with a global set from another");
  for (const wasm::DataSegment& segment : module.data)
    if (segment.mode == wasm::DataSegment::Mode::Active &&
        (segment.offset.instrs.empty() || segment.offset.instrs[0].op != Opcode::I32Const))
      return refuse(module, export_name, kernel, "is in a module with a data segment at a computed offset");
  if (module.total_memories() > 0 && module.imported_memories > 0)
    return refuse(module, export_name, kernel, "is in a module that imports its memory");
  for (uint32_t function : facts.graph.functions) {
    if (function < module.imported_functions) continue;
    for (const wasm::Instr& instr : module.functions[function - module.imported_functions].body) {
      const std::string why = unsupported_instruction(module, instr, facts.stack.stack_pointer);
      if (!why.empty()) return refuse(module, export_name, function, why);
    }
  }
  return {};
}

}  // namespace wasmgpu::cpu
