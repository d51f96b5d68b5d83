#include "cpu/kernel_support.h"

#include <string>

#include "frontend/intrinsic_catalog.h"
#include "frontend/shared_memory.h"

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
  if (info.cls == wasm::OpcodeClass::Atomic && info.access.kind == wasm::AccessKind::Wait)
    return "uses " + std::string(info.text) + " (an invocation cannot block)";
  (void)stack_pointer;
  switch (instr.op) {
    case Opcode::Call:
    case Opcode::ReturnCall:
      if (instr.imm0 < module.imported_functions && !cpu_intrinsic(module, instr.imm0)) {
        const wasm::Import* import = module.imported_function(instr.imm0);
        return "calls the import '" + import->module + "." + import->name + "' (images are not on the cpu device yet)";
      }
      return "";
    default: return "";
  }
}

}  // namespace

std::optional<CpuIntrinsic> cpu_intrinsic(const wasm::Module& module, uint32_t function_index) {
  // The signature is checked once, by the front end's catalog
  // (frontend::check_import_call); this maps its kinds to lowerings.
  if (!frontend::check_import_call(module, function_index, function_index).ok()) return std::nullopt;
  const frontend::Intrinsic* intrinsic = frontend::find_intrinsic(module, function_index);
  if (!intrinsic) return std::nullopt;
  const bool f32 = intrinsic->signature.result == wasm::ValType::F32;
  using K = frontend::IntrinsicKind;
  switch (intrinsic->kind) {
    case K::GlobalId: return CpuIntrinsic::GlobalId;
    case K::LocalId: return CpuIntrinsic::LocalId;
    case K::WorkgroupId: return CpuIntrinsic::WorkgroupId;
    case K::WorkgroupSize: return CpuIntrinsic::WorkgroupSize;
    case K::WorkgroupCount: return CpuIntrinsic::WorkgroupCount;
    case K::LocalIndex: return CpuIntrinsic::LocalIndex;
    case K::Barrier: return CpuIntrinsic::Barrier;
    case K::MemoryBarrier:
    case K::WorkgroupMemoryBarrier: return CpuIntrinsic::MemoryBarrier;
    case K::AtomicAdd: return CpuIntrinsic::AtomicAdd;
    case K::AtomicSub: return CpuIntrinsic::AtomicSub;
    case K::AtomicAnd: return CpuIntrinsic::AtomicAnd;
    case K::AtomicOr: return CpuIntrinsic::AtomicOr;
    case K::AtomicXor: return CpuIntrinsic::AtomicXor;
    case K::AtomicMinS: return CpuIntrinsic::AtomicMinS;
    case K::AtomicMaxS: return CpuIntrinsic::AtomicMaxS;
    case K::AtomicMinU: return CpuIntrinsic::AtomicMinU;
    case K::AtomicMaxU: return CpuIntrinsic::AtomicMaxU;
    case K::AtomicExchange: return CpuIntrinsic::AtomicExchange;
    case K::AtomicCompareExchange: return CpuIntrinsic::AtomicCompareExchange;
    case K::AtomicAddF32: return CpuIntrinsic::AtomicAddF32;
    case K::SubgroupSize: return CpuIntrinsic::SubgroupSize;
    case K::SubgroupInvocationId: return CpuIntrinsic::SubgroupInvocationId;
    case K::SubgroupId: return CpuIntrinsic::SubgroupId;
    case K::SubgroupCount: return CpuIntrinsic::SubgroupCount;
    case K::SubgroupBroadcast:
    case K::SubgroupShuffle: return CpuIntrinsic::SubgroupBroadcast;
    case K::SubgroupBallot: return CpuIntrinsic::SubgroupBallot;
    case K::SubgroupAll: return CpuIntrinsic::SubgroupAll;
    case K::SubgroupAny: return CpuIntrinsic::SubgroupAny;
    case K::SubgroupAdd: return f32 ? CpuIntrinsic::SubgroupAddF32 : CpuIntrinsic::SubgroupAddI32;
    case K::SubgroupMinS: return CpuIntrinsic::SubgroupMinS;
    case K::SubgroupMinU: return CpuIntrinsic::SubgroupMinU;
    case K::SubgroupMinF: return CpuIntrinsic::SubgroupMinF;
    case K::SubgroupMaxS: return CpuIntrinsic::SubgroupMaxS;
    case K::SubgroupMaxU: return CpuIntrinsic::SubgroupMaxU;
    case K::SubgroupMaxF: return CpuIntrinsic::SubgroupMaxF;
    case K::SubgroupInclusiveAdd:
      return f32 ? CpuIntrinsic::SubgroupInclusiveAddF32 : CpuIntrinsic::SubgroupInclusiveAddI32;
    case K::SubgroupExclusiveAdd:
      return f32 ? CpuIntrinsic::SubgroupExclusiveAddF32 : CpuIntrinsic::SubgroupExclusiveAddI32;
    // Images are not on the cpu device yet.
    case K::ImageLoad2D:
    case K::ImageLoad3D:
    case K::ImageStore2D:
    case K::ImageStore3D:
    case K::ImageSample2D:
    case K::ImageSample3D:
    case K::ImageSize: return std::nullopt;
    case K::ClockTimeGet: return CpuIntrinsic::ClockTimeGet;
  }
  return std::nullopt;
}

bool needs_fibers(const wasm::Module& module, const frontend::FrontEndFacts& facts) {
  for (uint32_t function : facts.graph.functions) {
    if (function < module.imported_functions) continue;
    for (const wasm::Instr& instr : module.functions[function - module.imported_functions].body) {
      if (instr.op != Opcode::Call && instr.op != Opcode::ReturnCall) continue;
      const std::optional<CpuIntrinsic> intrinsic = cpu_intrinsic(module, instr.imm0);
      if (intrinsic && (*intrinsic == CpuIntrinsic::Barrier || is_cross_lane(*intrinsic))) return true;
    }
  }
  return false;
}

Status check_cpu_support(const wasm::Module& module, const frontend::FrontEndFacts& facts,
                         std::string_view export_name) {
  const uint32_t kernel = facts.kernel_function.value_or(0);
  // Recursion runs on the native stack with a depth count; a fiber's C stack
  // (256 KiB) is too small for max_call_depth frames.
  if (!facts.graph.recursive_components.empty() && needs_fibers(module, facts))
    return refuse(module, export_name, facts.graph.recursive_components.front().front(),
                  "is recursive in a kernel with barriers or subgroup operations (their fibers' stacks are small)");
  Result<frontend::SharedMemory> shared = frontend::find_shared_memory(module);
  if (!shared.ok()) return shared.error();
  for (const wasm::DataSegment& segment : module.data)
    if (segment.mode == wasm::DataSegment::Mode::Active &&
        (segment.offset.instrs.empty() || segment.offset.instrs[0].op != Opcode::I32Const))
      return refuse(module, export_name, kernel, "is in a module with a data segment at a computed offset");
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
