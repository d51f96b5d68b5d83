// Opcodes and their static properties, generated from opcodes.def so that a
// missed instruction is a compile error rather than a silent gap.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace wasmgpu::wasm {

enum class ImmediateKind : uint8_t {
  None, Block, LabelIndex, BrTable, FuncIndex, CallIndirect, LocalIndex, GlobalIndex,
  TableIndex, TableInit, TableCopy, ElemIndex, DataIndex, MemArg, MemArgLane, Memory,
  I32Const, I64Const, F32Const, F64Const, V128Const, Shuffle, Lane, SelectTyped, RefNull,
  AtomicFence,  // atomic.fence: one zero byte
};

enum class Opcode : uint16_t {
#define WASM_OPCODE(name, text, prefix, code, imm, sig) name,
#include "wasm/opcodes.def"
#undef WASM_OPCODE
};

inline constexpr uint32_t kOpcodeCount = 0
#define WASM_OPCODE(name, text, prefix, code, imm, sig) +1
#include "wasm/opcodes.def"
#undef WASM_OPCODE
    ;

struct OpcodeInfo {
  std::string_view text;   // "i32.add"
  uint8_t prefix;          // 0, 0xFC, 0xFD or 0xFE
  uint32_t code;           // byte, or sub-opcode after the prefix
  ImmediateKind immediate;
  std::string_view signature;  // "ii:i", or "*" when typed by hand
};

const OpcodeInfo& info(Opcode op);

// Bytes accessed by a threads-proposal (0xFE) memory instruction: 1, 2, 4 or
// 8; 0 for atomic.fence and every other instruction.
uint32_t atomic_access_bytes(Opcode op);

// The opcode for an encoding, or nullopt if none.
std::optional<Opcode> lookup_opcode(uint8_t prefix, uint32_t code);

}  // namespace wasmgpu::wasm
