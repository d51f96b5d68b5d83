#include "wasm/instruction_decoder.h"

#include <algorithm>

namespace wasmgpu::wasm {

bool is_value_type_byte(uint8_t byte) {
  switch (byte) {
    case 0x7F:
    case 0x7E:
    case 0x7D:
    case 0x7C:
    case 0x7B:
    case 0x70:
    case 0x6F: return true;
    default: return false;
  }
}

Result<ValType> decode_value_type(BinaryReader& reader) {
  const size_t at = reader.offset();
  WASMGPU_ASSIGN_OR_RETURN(uint8_t byte, reader.read_byte());
  if (!is_value_type_byte(byte)) return make_error_at(ErrorCode::Decode, at, "malformed value type");
  return static_cast<ValType>(byte);
}

Result<ValType> decode_reference_type(BinaryReader& reader) {
  const size_t at = reader.offset();
  WASMGPU_ASSIGN_OR_RETURN(uint8_t byte, reader.read_byte());
  if (byte != 0x70 && byte != 0x6F) return make_error_at(ErrorCode::Decode, at, "malformed reference type");
  return static_cast<ValType>(byte);
}

namespace {

Status expect_zero_byte(BinaryReader& reader) {
  const size_t at = reader.offset();
  WASMGPU_ASSIGN_OR_RETURN(uint8_t byte, reader.read_byte());
  if (byte != 0) return make_error_at(ErrorCode::Decode, at, "zero byte expected");
  return {};
}

Result<BlockType> decode_block_type(BinaryReader& reader) {
  const size_t at = reader.offset();
  WASMGPU_ASSIGN_OR_RETURN(uint8_t first, reader.peek_byte());
  BlockType block;
  if (first == 0x40) {
    (void)reader.read_byte();
    return block;
  }
  if (is_value_type_byte(first)) {
    (void)reader.read_byte();
    block.kind = BlockType::Kind::Value;
    block.value = static_cast<ValType>(first);
    return block;
  }
  // A type index, encoded as a non-negative s33 so that it cannot collide
  // with the one-byte forms above.
  WASMGPU_ASSIGN_OR_RETURN(int64_t index, reader.read_s33());
  if (index < 0) return make_error_at(ErrorCode::Decode, at, "malformed block type");
  block.kind = BlockType::Kind::TypeIndex;
  block.type_index = uint32_t(index);
  return block;
}

// The memarg's flags hold the alignment exponent; with multi-memory, bit 6
// says that a memory index follows them (3.0 binary format, 5.4.6). Larger
// flag values stay alignments, which the validator refuses.
constexpr uint32_t kMemArgHasMemoryIndex = 1u << 6;

Status decode_mem_arg(BinaryReader& reader, const ExpressionContext& context, Instr& instr) {
  WASMGPU_ASSIGN_OR_RETURN(instr.imm0, reader.read_u32());
  if (context.multi_memory && (instr.imm0 & kMemArgHasMemoryIndex) != 0 && instr.imm0 < 2 * kMemArgHasMemoryIndex) {
    instr.imm0 &= ~kMemArgHasMemoryIndex;
    WASMGPU_ASSIGN_OR_RETURN(instr.memory, reader.read_u32());
  }
  WASMGPU_ASSIGN_OR_RETURN(instr.imm1, reader.read_u32());
  return {};
}

// A memory index of memory.size/grow/fill/copy/init: a u32 with multi-memory,
// else the reserved zero byte of 2.0.
Result<uint32_t> decode_memory_index(BinaryReader& reader, const ExpressionContext& context) {
  if (context.multi_memory) return reader.read_u32();
  WASMGPU_TRY(expect_zero_byte(reader));
  return 0u;
}

Result<uint64_t> read_u64_le(BinaryReader& reader) {
  WASMGPU_ASSIGN_OR_RETURN(auto bytes, reader.read_bytes(8));
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[size_t(i)];
  return value;
}

Status decode_immediates(BinaryReader& reader, const ExpressionContext& context, Instr& instr,
                         std::vector<std::vector<uint32_t>>& br_tables) {
  switch (info(instr.op).immediate) {
    case ImmediateKind::None: return {};
    case ImmediateKind::Block: {
      WASMGPU_ASSIGN_OR_RETURN(instr.block, decode_block_type(reader));
      return {};
    }
    case ImmediateKind::LabelIndex:
    case ImmediateKind::FuncIndex:
    case ImmediateKind::LocalIndex:
    case ImmediateKind::GlobalIndex:
    case ImmediateKind::TableIndex:
    case ImmediateKind::ElemIndex: {
      WASMGPU_ASSIGN_OR_RETURN(instr.imm0, reader.read_u32());
      return {};
    }
    case ImmediateKind::DataIndex: {
      if (!context.has_data_count) return make_error_at(ErrorCode::Decode, instr.offset, "data count section required");
      WASMGPU_ASSIGN_OR_RETURN(instr.imm0, reader.read_u32());
      if (instr.op == Opcode::MemoryInit) {
        WASMGPU_ASSIGN_OR_RETURN(instr.memory, decode_memory_index(reader, context));
      }
      return {};
    }
    case ImmediateKind::BrTable: {
      WASMGPU_ASSIGN_OR_RETURN(uint32_t count, reader.read_u32());
      std::vector<uint32_t> targets;
      // Each target takes at least one byte: never reserve beyond the input.
      targets.reserve(std::min<size_t>(size_t(count) + 1, reader.remaining()));
      for (uint64_t i = 0; i <= count; ++i) {
        WASMGPU_ASSIGN_OR_RETURN(uint32_t target, reader.read_u32());
        targets.push_back(target);
      }
      instr.imm0 = uint32_t(br_tables.size());
      br_tables.push_back(std::move(targets));
      return {};
    }
    case ImmediateKind::CallIndirect:
    case ImmediateKind::TableInit:
    case ImmediateKind::TableCopy: {
      WASMGPU_ASSIGN_OR_RETURN(instr.imm0, reader.read_u32());
      WASMGPU_ASSIGN_OR_RETURN(instr.imm1, reader.read_u32());
      return {};
    }
    case ImmediateKind::MemArg: return decode_mem_arg(reader, context, instr);
    case ImmediateKind::MemArgLane: {
      WASMGPU_TRY(decode_mem_arg(reader, context, instr));
      WASMGPU_ASSIGN_OR_RETURN(uint8_t lane, reader.read_byte());
      instr.imm64 = lane;
      return {};
    }
    case ImmediateKind::Memory: {
      // memory.copy names two memories (destination first), the others one;
      // 2.0 requires index 0 encoded as a single zero byte.
      WASMGPU_ASSIGN_OR_RETURN(instr.memory, decode_memory_index(reader, context));
      if (instr.op == Opcode::MemoryCopy) {
        WASMGPU_ASSIGN_OR_RETURN(instr.source_memory, decode_memory_index(reader, context));
      }
      return {};
    }
    case ImmediateKind::I32Const: {
      WASMGPU_ASSIGN_OR_RETURN(int32_t value, reader.read_s32());
      instr.imm64 = uint64_t(int64_t(value));
      return {};
    }
    case ImmediateKind::I64Const: {
      WASMGPU_ASSIGN_OR_RETURN(int64_t value, reader.read_s64());
      instr.imm64 = uint64_t(value);
      return {};
    }
    case ImmediateKind::F32Const: {
      WASMGPU_ASSIGN_OR_RETURN(uint32_t bits, reader.read_f32_bits());
      instr.imm64 = bits;
      return {};
    }
    case ImmediateKind::F64Const: {
      WASMGPU_ASSIGN_OR_RETURN(instr.imm64, reader.read_f64_bits());
      return {};
    }
    case ImmediateKind::V128Const:
    case ImmediateKind::Shuffle: {
      WASMGPU_ASSIGN_OR_RETURN(instr.imm64, read_u64_le(reader));
      WASMGPU_ASSIGN_OR_RETURN(instr.imm64_hi, read_u64_le(reader));
      return {};
    }
    case ImmediateKind::Lane: {
      WASMGPU_ASSIGN_OR_RETURN(uint8_t lane, reader.read_byte());
      instr.imm0 = lane;
      return {};
    }
    case ImmediateKind::SelectTyped: {
      WASMGPU_ASSIGN_OR_RETURN(uint32_t count, reader.read_u32());
      instr.imm1 = count;
      for (uint64_t i = 0; i < count; ++i) {
        WASMGPU_ASSIGN_OR_RETURN(ValType type, decode_value_type(reader));
        if (i == 0) instr.imm0 = uint32_t(type);
      }
      return {};
    }
    case ImmediateKind::AtomicFence: return expect_zero_byte(reader);
    case ImmediateKind::RefNull: {
      WASMGPU_ASSIGN_OR_RETURN(ValType type, decode_reference_type(reader));
      instr.imm0 = uint32_t(type);
      return {};
    }
  }
  return make_error_at(ErrorCode::Decode, instr.offset, "illegal opcode");
}

}  // namespace

Status decode_expression(BinaryReader& reader, const ExpressionContext& context, std::vector<Instr>& instrs,
                         std::vector<std::vector<uint32_t>>& br_tables) {
  // Indices in `instrs` of the open block/loop/if instructions.
  std::vector<uint32_t> open_blocks;
  for (;;) {
    Instr instr;
    instr.offset = uint32_t(reader.offset());
    if (reader.at_end()) return reader.error_here("unexpected end of section or function");
    WASMGPU_ASSIGN_OR_RETURN(uint8_t first, reader.read_byte());
    uint32_t code = first;
    uint8_t prefix = 0;
    if (first == 0xFC || first == 0xFD || first == 0xFE) {
      prefix = first;
      WASMGPU_ASSIGN_OR_RETURN(code, reader.read_u32());
    }
    std::optional<Opcode> op = lookup_opcode(prefix, code);
    if (!op) return make_error_at(ErrorCode::Decode, instr.offset, "illegal opcode");
    instr.op = *op;
    WASMGPU_TRY(decode_immediates(reader, context, instr, br_tables));

    const uint32_t index = uint32_t(instrs.size());
    switch (instr.op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If: open_blocks.push_back(index); break;
      case Opcode::Else: {
        if (open_blocks.empty() || instrs[open_blocks.back()].op != Opcode::If || instrs[open_blocks.back()].imm0 != 0)
          return make_error_at(ErrorCode::Decode, instr.offset, "else without matching if");
        instrs[open_blocks.back()].imm0 = index;
        break;
      }
      case Opcode::End: {
        if (open_blocks.empty()) {
          instrs.push_back(instr);
          return {};
        }
        Instr& opener = instrs[open_blocks.back()];
        open_blocks.pop_back();
        opener.imm1 = index;
        if (opener.op != Opcode::If || opener.imm0 == 0) opener.imm0 = index;
        break;
      }
      default: break;
    }
    instrs.push_back(instr);
  }
}

}  // namespace wasmgpu::wasm
