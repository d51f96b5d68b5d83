// Opcodes and their static facts, generated from opcodes.def so that a
// missed instruction is a compile error rather than a silent gap. Every stage
// reads an instruction's types, memory access, traps and class from here;
// none works them out from its name.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "wasm/value_type.h"

namespace wasmgpu::wasm {

enum class ImmediateKind : uint8_t {
  None,
  Block,
  LabelIndex,
  BrTable,
  FuncIndex,
  CallIndirect,
  LocalIndex,
  GlobalIndex,
  TableIndex,
  TableInit,
  TableCopy,
  ElemIndex,
  DataIndex,
  MemArg,
  MemArgLane,
  Memory,
  I32Const,
  I64Const,
  F32Const,
  F64Const,
  V128Const,
  Shuffle,
  Lane,
  SelectTyped,
  RefNull,
  AtomicFence,  // atomic.fence: one zero byte
};

// The spec's instruction classes, with comparisons apart from the other
// numeric instructions (they give an i32 truth value) and the threads
// proposal's atomics apart from memory instructions.
enum class OpcodeClass : uint8_t {
  Control,     // block, br, call, return, unreachable, ...
  Parametric,  // drop, select
  Variable,    // local.*, global.*
  Table,       // table.*, elem.drop
  Reference,   // ref.null, ref.is_null, ref.func
  Memory,      // plain loads and stores, memory.size/grow, bulk memory, data.drop
  Numeric,     // constants, arithmetic, bit operations, conversions
  Comparison,  // eqz, eq, ne, lt, gt, le, ge of every numeric type
  Vector,      // every SIMD (0xFD) instruction, its loads and stores included
  Atomic,      // every threads-proposal (0xFE) instruction
};

// What an instruction does to linear memory.
enum class AccessKind : uint8_t {
  None,
  Load,
  Store,
  Add,
  Sub,
  And,
  Or,
  Xor,
  Exchange,
  CompareExchange,
  Wait,
  Notify,
};

// How loaded bytes widen to the result: not at all (the access is the
// result's width, or a lane's), with zeros, or with copies of the sign bit.
enum class Extend : uint8_t { Full, Zero, Sign };

struct MemoryAccess {
  uint8_t bytes = 0;  // bytes accessed at the address: 1, 2, 4, 8 or 16; 0 for no access
  AccessKind kind = AccessKind::None;
  Extend extend = Extend::Full;
  bool reads() const { return kind != AccessKind::None && kind != AccessKind::Store; }
  bool writes() const {
    return kind != AccessKind::None && kind != AccessKind::Load && kind != AccessKind::Wait &&
           kind != AccessKind::Notify;
  }
};

// The types an instruction pops or pushes, bottom of the stack first.
class ValTypes {
 public:
  constexpr ValTypes(std::initializer_list<ValType> types) {
    for (ValType t : types) types_[count_++] = t;
  }
  constexpr size_t size() const { return count_; }
  constexpr bool empty() const { return count_ == 0; }
  constexpr ValType operator[](size_t i) const { return types_[i]; }
  constexpr const ValType* begin() const { return types_.data(); }
  constexpr const ValType* end() const { return types_.data() + count_; }

 private:
  std::array<ValType, 3> types_{};
  uint8_t count_ = 0;
};

enum class Opcode : uint16_t {
#define WASM_OPCODE(name, text, prefix, code, imm, cls, typing, params, results, access, trap) name,
#include "wasm/opcodes.def"
#undef WASM_OPCODE
};

inline constexpr uint32_t kOpcodeCount = 0
#define WASM_OPCODE(name, text, prefix, code, imm, cls, typing, params, results, access, trap) +1
#include "wasm/opcodes.def"
#undef WASM_OPCODE
    ;

struct OpcodeInfo {
  std::string_view text;  // "i32.add"
  uint8_t prefix;         // 0, 0xFC, 0xFD or 0xFE
  uint32_t code;          // byte, or sub-opcode after the prefix
  ImmediateKind immediate;
  OpcodeClass cls;
  bool typed_by_hand;   // params and results are empty: the validator types it (opcodes.def)
  ValTypes params;      // popped, the first one deepest
  ValTypes results;     // pushed
  MemoryAccess access;  // the address is the first parameter
  bool may_trap;
};

const OpcodeInfo& info(Opcode op);

// The opcode for an encoding, or nullopt if none.
std::optional<Opcode> lookup_opcode(uint8_t prefix, uint32_t code);

}  // namespace wasmgpu::wasm
