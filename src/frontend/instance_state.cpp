#include "frontend/instance_state.h"

#include <algorithm>
#include <cstring>

#include "abi/launch_abi.h"
#include "frontend/memories.h"
#include "frontend/stack_analysis.h"
#include "frontend/table.h"

namespace wasmgpu::frontend {

namespace {

std::optional<wasm::MemoryType> module_memory(const wasm::Module& module) {
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory) return import.memory;
  if (!module.memories.empty()) return module.memories[0];
  return std::nullopt;
}

// Instructions that work on the InstanceState: memory growth and segments,
// and everything that reads or writes a table.
bool reads_instance_state(wasm::Opcode op) {
  using wasm::Opcode;
  switch (op) {
    case Opcode::MemoryGrow:
    case Opcode::MemoryInit:
    case Opcode::DataDrop:
    case Opcode::CallIndirect:
    case Opcode::ReturnCallIndirect:
    case Opcode::TableGet:
    case Opcode::TableSet:
    case Opcode::TableInit:
    case Opcode::ElemDrop:
    case Opcode::TableCopy:
    case Opcode::TableGrow:
    case Opcode::TableSize:
    case Opcode::TableFill: return true;
    default: return false;
  }
}

void put32(std::vector<uint8_t>& out, uint64_t at, uint32_t value) { std::memcpy(&out[at], &value, 4); }
void put64(std::vector<uint8_t>& out, uint64_t at, uint64_t value) { std::memcpy(&out[at], &value, 8); }

// Element segments' items and dropped flags, then every table: null slots,
// with the active segments copied in, in order (`globals`: every global's
// value, for offsets that read an imported one).
Status initialise_tables(const wasm::Module& module, const InstanceLayout& layout, std::span<const uint64_t> globals,
                         std::vector<uint8_t>& state) {
  for (size_t t = 0; t < layout.table_offsets.size(); ++t) {
    const wasm::TableType& table = module.tables[t];
    uint32_t capacity = frontend::table_capacity(table);
    if (table.limits.min > capacity)
      return make_error(ErrorCode::Compile, "table " + std::to_string(t) + " has " + std::to_string(table.limits.min) +
                                                " elements; wasmgpu supports at most " +
                                                std::to_string(frontend::kMaxTableSlots));
    put32(state, layout.table_offsets[t] + abi::kTableSize, uint32_t(table.limits.min));
    put32(state, layout.table_offsets[t] + abi::kTableCapacity, capacity);
    for (uint32_t i = 0; i < capacity; ++i)
      put32(state, layout.table_offsets[t] + abi::kTableSlots + 4 * i, abi::kNullRef);
  }
  for (size_t s = 0; s < module.elements.size(); ++s) {
    const wasm::ElementSegment& segment = module.elements[s];
    const std::string name = "element segment " + std::to_string(s);
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> items, frontend::element_items(segment));
    for (size_t i = 0; i < items.size(); ++i) put32(state, layout.elem_items_offsets[s] + 4 * i, items[i]);
    put32(state, layout.elem_dropped_offset + 4 * s, segment.mode == wasm::ElementSegment::Mode::Passive ? 0 : 1);
    if (segment.mode != wasm::ElementSegment::Mode::Active) continue;
    if (segment.table >= layout.table_offsets.size())
      return make_error(ErrorCode::Compile, name + " initialises an imported table (not supported)");
    if (segment.offset.instrs.empty()) return make_error(ErrorCode::Validation, name + " has no offset");
    const wasm::Instr& offset_instr = segment.offset.instrs[0];
    uint64_t offset = 0;
    if (offset_instr.op == wasm::Opcode::I32Const)
      offset = uint32_t(offset_instr.imm64);
    else if (offset_instr.op == wasm::Opcode::GlobalGet && offset_instr.imm0 < globals.size())
      offset = uint32_t(globals[offset_instr.imm0]);
    else
      return make_error(ErrorCode::Compile, name + "'s offset is not i32.const or global.get");
    const uint32_t table_offset = layout.table_offsets[segment.table];
    uint32_t size = 0;
    std::memcpy(&size, &state[table_offset + abi::kTableSize], 4);
    if (offset + items.size() > size)
      return make_error(ErrorCode::Compile, name + " does not fit table " + std::to_string(segment.table) +
                                                " (instantiation traps: out of bounds table access)");
    for (size_t i = 0; i < items.size(); ++i)
      put32(state, table_offset + abi::kTableSlots + 4 * (offset + i), items[i]);
  }
  return {};
}

}  // namespace

InstanceLayout instance_layout(const wasm::Module& module) {
  InstanceLayout layout;
  layout.globals_offset = abi::kInstanceGlobals;
  layout.data_dropped_offset = layout.globals_offset + abi::kInstanceGlobalSlotSize * module.total_globals();
  layout.elem_dropped_offset = layout.data_dropped_offset + 4 * uint32_t(module.data.size());
  uint32_t at = layout.elem_dropped_offset + 4 * uint32_t(module.elements.size());
  for (const wasm::ElementSegment& segment : module.elements) {
    layout.elem_items_offsets.push_back(at);
    at += 4 * uint32_t(segment.items.size());
  }
  if (module.imported_tables == 0)
    for (const wasm::TableType& table : module.tables) {
      at = (at + 7) & ~7u;
      layout.table_offsets.push_back(at);
      at += abi::kTableSlots + 4 * frontend::table_capacity(table);
    }
  bool has_v128_global = false;
  for (uint32_t g = 0; g < module.total_globals(); ++g)
    has_v128_global = has_v128_global || module.global_type(g).type == wasm::ValType::V128;
  if (has_v128_global) {
    at = (at + 15) & ~15u;
    layout.v128_globals_offset = at;
    at += 16 * module.total_globals();
  }
  if (module.total_memories() > 1) {
    at = (at + 7) & ~7u;
    layout.memories_offset = at;
    at += abi::kExtraMemoryRecordSize * (module.total_memories() - 1);
  }
  layout.size = (at + 7) & ~7u;
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
      return make_error(ErrorCode::Compile, "the memory reserve is smaller than the module's initial memory");
    put32(state, abi::kInstanceMemoryPages, uint32_t(memory->limits.min));
    put32(state, abi::kInstanceMemoryLimitPages, uint32_t(limit));
  }
  if (imported_globals.size() != module.imported_globals)
    return make_error(ErrorCode::Compile, "the module imports " + std::to_string(module.imported_globals) +
                                              " globals, " + std::to_string(imported_globals.size()) +
                                              " values were given");
  std::vector<uint64_t> values(imported_globals.begin(), imported_globals.end());
  for (uint32_t i = 0; i < module.globals.size(); ++i) {
    const wasm::ConstExpr& init = module.globals[i].init;
    if (init.instrs.empty())
      return make_error(ErrorCode::Validation, "global " + std::to_string(i) + " has no initializer");
    const wasm::Instr& instr = init.instrs[0];
    uint64_t value = 0;
    switch (instr.op) {
      case wasm::Opcode::I32Const:
      case wasm::Opcode::F32Const: value = uint32_t(instr.imm64); break;
      case wasm::Opcode::I64Const:
      case wasm::Opcode::F64Const: value = instr.imm64; break;
      case wasm::Opcode::GlobalGet:
        if (instr.imm0 >= values.size())
          return make_error(ErrorCode::Validation, "global initializer reads global " + std::to_string(instr.imm0));
        value = values[instr.imm0];
        break;
      case wasm::Opcode::RefNull: value = abi::kNullRef; break;
      case wasm::Opcode::RefFunc: value = instr.imm0; break;
      case wasm::Opcode::V128Const: {
        const uint32_t at = layout.v128_globals_offset + 16 * (module.imported_globals + i);
        put64(state, at, instr.imm64);
        put64(state, at + 8, instr.imm64_hi);
        value = instr.imm64;
        break;
      }
      default:
        return make_error(ErrorCode::Compile, "global " + std::to_string(module.imported_globals + i) +
                                                  " has an unsupported initializer (" +
                                                  std::string(wasm::info(instr.op).text) + ")");
    }
    values.push_back(value);
  }
  for (size_t i = 0; i < values.size(); ++i)
    put64(state, layout.globals_offset + abi::kInstanceGlobalSlotSize * i, values[i]);
  for (size_t i = 0; i < module.data.size(); ++i)
    put32(state, layout.data_dropped_offset + 4 * i, module.data[i].mode == wasm::DataSegment::Mode::Active ? 1 : 0);
  WASMGPU_TRY(initialise_tables(module, layout, values, state));
  for (const ExtraMemory& memory : extra_memories(module, layout.memories_offset).memories) {
    put32(state, memory.state_offset + abi::kExtraMemoryPages, memory.initial_pages);
    put32(state, memory.state_offset + abi::kExtraMemoryLimitPages, memory.limit_pages);
  }
  return state;
}

std::vector<uint8_t> data_segment_bytes(const wasm::Module& module) {
  std::vector<uint8_t> bytes;
  for (const wasm::DataSegment& segment : module.data)
    bytes.insert(bytes.end(), segment.bytes.begin(), segment.bytes.end());
  return bytes;
}

bool module_uses_instance_state(const wasm::Module& module) {
  // Memories after the first keep their sizes and addresses there.
  if (module.imported_globals > 0 || module.total_memories() > 1) return true;
  // The shadow stack pointer stays private per invocation: it alone needs no instance state.
  std::optional<uint32_t> stack_pointer = frontend::find_stack_pointer(module);
  for (uint32_t i = 0; i < module.globals.size(); ++i)
    if (module.globals[i].type.is_mutable && stack_pointer != module.imported_globals + i) return true;
  for (const wasm::Function& function : module.functions)
    for (const wasm::Instr& instr : function.body)
      if (reads_instance_state(instr.op)) return true;
  return false;
}

}  // namespace wasmgpu::frontend
