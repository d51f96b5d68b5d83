#include "spirv/instance_state.h"

#include <algorithm>
#include <cstring>

#include "abi/launch_abi.h"
#include "spirv/stack_analysis.h"

namespace wasmgpu::spirv {

namespace {

std::optional<wasm::MemoryType> module_memory(const wasm::Module& module) {
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) return import.memory;
  if (!module.memories.empty()) return module.memories[0];
  return std::nullopt;
}

void put32(std::vector<uint8_t>& out, uint64_t at, uint32_t value) { std::memcpy(&out[at], &value, 4); }
void put64(std::vector<uint8_t>& out, uint64_t at, uint64_t value) { std::memcpy(&out[at], &value, 8); }

}  // namespace

InstanceLayout instance_layout(const wasm::Module& module) {
  InstanceLayout layout;
  layout.globals_offset = abi::kInstanceGlobals;
  layout.data_dropped_offset = layout.globals_offset + abi::kInstanceGlobalSlotSize * module.total_globals();
  layout.size = layout.data_dropped_offset + 4 * uint32_t(module.data.size());
  layout.size = (layout.size + 7) & ~7u;
  uint64_t offset = 0;
  for (const wasm::DataSegment& segment : module.data) {
    layout.data_offsets.push_back(offset);
    offset += segment.bytes.size();
  }
  return layout;
}

uint64_t memory_reserve_bytes(const wasm::Module& module, uint64_t cap_without_max) {
  std::optional<wasm::MemoryType> memory = module_memory(module);
  if (!memory) return 0;
  uint64_t initial = memory->limits.min * abi::kPageSize;
  uint64_t max = memory->limits.max ? *memory->limits.max * abi::kPageSize : cap_without_max;
  max = std::min<uint64_t>(max, uint64_t(abi::kMaxPages) * abi::kPageSize);
  return std::max(initial, max);
}

Result<std::vector<uint8_t>> initial_instance_state(const wasm::Module& module,
                                                    std::span<const uint64_t> imported_globals,
                                                    uint64_t reserve_bytes) {
  InstanceLayout layout = instance_layout(module);
  std::vector<uint8_t> state(layout.size, 0);
  if (std::optional<wasm::MemoryType> memory = module_memory(module)) {
    uint64_t limit = memory->limits.max ? *memory->limits.max : abi::kMaxPages;
    limit = std::min<uint64_t>(limit, reserve_bytes / abi::kPageSize);
    if (reserve_bytes < memory->limits.min * abi::kPageSize)
      return make_error("the memory reserve is smaller than the module's initial memory");
    put32(state, abi::kInstanceMemoryPages, uint32_t(memory->limits.min));
    put32(state, abi::kInstanceMemoryLimitPages, uint32_t(limit));
  }
  if (imported_globals.size() != module.imported_globals)
    return make_error("the module imports " + std::to_string(module.imported_globals) + " globals, " +
                      std::to_string(imported_globals.size()) + " values were given");
  std::vector<uint64_t> values(imported_globals.begin(), imported_globals.end());
  for (uint32_t i = 0; i < module.globals.size(); ++i) {
    const wasm::ConstExpr& init = module.globals[i].init;
    if (init.instrs.empty()) return make_error("global " + std::to_string(i) + " has no initializer");
    const wasm::Instr& instr = init.instrs[0];
    uint64_t value = 0;
    switch (instr.op) {
      case wasm::Opcode::I32Const:
      case wasm::Opcode::F32Const: value = uint32_t(instr.imm64); break;
      case wasm::Opcode::I64Const:
      case wasm::Opcode::F64Const: value = instr.imm64; break;
      case wasm::Opcode::GlobalGet:
        if (instr.imm0 >= values.size())
          return make_error("global initializer reads global " + std::to_string(instr.imm0));
        value = values[instr.imm0];
        break;
      default:
        value = 0;  // references (ref.null / ref.func): not modelled, never read by shaders
        break;
    }
    values.push_back(value);
  }
  for (size_t i = 0; i < values.size(); ++i)
    put64(state, layout.globals_offset + abi::kInstanceGlobalSlotSize * i, values[i]);
  for (size_t i = 0; i < module.data.size(); ++i)
    put32(state, layout.data_dropped_offset + 4 * i,
          module.data[i].mode == wasm::DataSegment::Mode::Active ? 1 : 0);
  return state;
}

std::vector<uint8_t> data_segment_bytes(const wasm::Module& module) {
  std::vector<uint8_t> bytes;
  for (const wasm::DataSegment& segment : module.data)
    bytes.insert(bytes.end(), segment.bytes.begin(), segment.bytes.end());
  return bytes;
}

bool module_uses_instance_state(const wasm::Module& module) {
  if (module.imported_globals > 0) return true;
  // The shadow stack pointer stays private per invocation: it alone needs no instance state.
  std::optional<uint32_t> stack_pointer = find_stack_pointer(module);
  for (uint32_t i = 0; i < module.globals.size(); ++i)
    if (module.globals[i].type.is_mutable && stack_pointer != module.imported_globals + i) return true;
  for (const wasm::Function& function : module.functions)
    for (const wasm::Instr& instr : function.body)
      if (instr.op == wasm::Opcode::MemoryGrow || instr.op == wasm::Opcode::MemoryInit ||
          instr.op == wasm::Opcode::DataDrop)
        return true;
  return false;
}

}  // namespace wasmgpu::spirv
