// The in-memory form of a decoded WebAssembly 2.0 module: what the decoder
// produces, the validator checks and the SPIR-V back end consumes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wasm/opcode.h"
#include "wasm/value_type.h"

namespace wasmgpu::wasm {

struct FuncType {
  std::vector<ValType> params;
  std::vector<ValType> results;
  bool operator==(const FuncType&) const = default;
};

struct Limits {
  uint64_t min = 0;
  std::optional<uint64_t> max;
  bool shared = false;  // memories only (threads proposal: flags 0x02/0x03)
};

struct TableType {
  ValType element = ValType::FuncRef;
  Limits limits;
};

struct MemoryType {
  Limits limits;  // in 64 KiB pages
};

struct GlobalType {
  ValType type = ValType::I32;
  bool is_mutable = false;
};

enum class ExternalKind : uint8_t { Func = 0, Table = 1, Memory = 2, Global = 3 };

const char* to_string(ExternalKind kind);

struct Import {
  std::string module;
  std::string name;
  ExternalKind kind = ExternalKind::Func;
  uint32_t func_type = 0;  // kind == Func: index into Module::types
  TableType table;         // kind == Table
  MemoryType memory;       // kind == Memory
  GlobalType global;       // kind == Global
  uint64_t offset = 0;     // byte offset of the import entry in the binary
};

struct Export {
  std::string name;
  ExternalKind kind = ExternalKind::Func;
  uint32_t index = 0;   // in the index space of `kind` (imports first)
  uint64_t offset = 0;  // byte offset of the export entry in the binary
};

// The block type of block/loop/if.
struct BlockType {
  enum class Kind : uint8_t { Empty, Value, TypeIndex };
  Kind kind = Kind::Empty;
  ValType value = ValType::I32;  // Kind::Value
  uint32_t type_index = 0;       // Kind::TypeIndex
};

// One decoded instruction. Which immediate fields are meaningful depends on
// the opcode's ImmediateKind (see opcode.h):
//   None                  -
//   Block (block/loop/if) block; imm0 = index in the body of the matching
//                         `else` (if only; equals imm1 when there is none);
//                         imm1 = index of the matching `end`
//   LabelIndex (br/br_if) imm0 = relative label depth
//   BrTable               imm0 = index into Function::br_tables
//   FuncIndex (call, ref.func)  imm0
//   CallIndirect          imm0 = type index, imm1 = table index
//   LocalIndex            imm0
//   GlobalIndex           imm0
//   TableIndex            imm0 (table.get/set/size/grow/fill)
//   TableInit             imm0 = element segment, imm1 = table
//   TableCopy             imm0 = destination table, imm1 = source table
//   ElemIndex (elem.drop) imm0
//   DataIndex (data.drop, memory.init)  imm0
//   MemArg                imm0 = alignment exponent (log2 bytes), imm1 = offset,
//                         memory = the memory index (multi-memory; 0 otherwise)
//   MemArgLane            as MemArg, plus imm64 = lane index
//   Memory (memory.size/grow/copy/fill)  memory = the memory index (memory.copy:
//                         the destination's; source_memory the source's)
//   (memory.init also sets memory: the memory it writes)
//   I32Const / I64Const   imm64 = the value, sign-extended to 64 bits
//   F32Const / F64Const   imm64 = the IEEE bit pattern (f32 in the low 32 bits)
//   V128Const / Shuffle   imm64 = bytes 0..7, imm64_hi = bytes 8..15 (little-endian)
//   Lane                  imm0 = lane index
//   SelectTyped           imm0 = the ValType (as its byte); imm1 = how many types the
//                         binary listed (valid only when 1; the validator checks)
//   RefNull               imm0 = the reference ValType (as its byte)
struct Instr {
  Opcode op = Opcode::Nop;
  uint32_t offset = 0;  // byte offset of the opcode in the module binary
  uint32_t imm0 = 0;
  uint32_t imm1 = 0;
  uint64_t imm64 = 0;
  uint64_t imm64_hi = 0;
  BlockType block;
  // Memory indices (multi-memory, WebAssembly 3.0): kept apart from imm0/imm1
  // so that every instruction that names a memory finds it in one place.
  uint32_t memory = 0;
  uint32_t source_memory = 0;  // memory.copy only
};

// A constant expression (global initialisers, segment offsets), ending in `end`.
struct ConstExpr {
  std::vector<Instr> instrs;
};

struct Global {
  GlobalType type;
  ConstExpr init;
};

struct Function {
  uint32_t type_index = 0;
  std::vector<ValType> locals;                   // declared locals, expanded, parameters excluded
  std::vector<Instr> body;                       // ends with the function's final `end`
  std::vector<std::vector<uint32_t>> br_tables;  // br_table targets; the default label last
  uint64_t body_offset = 0;                      // byte offset of the body (its size field) in the binary
};

struct ElementSegment {
  enum class Mode : uint8_t { Active, Passive, Declarative };
  Mode mode = Mode::Active;
  uint32_t table = 0;
  ConstExpr offset;                 // Active only
  ValType type = ValType::FuncRef;  // element reference type
  std::vector<ConstExpr> items;     // each ref.func N / ref.null T / global.get, ending in `end`
};

struct DataSegment {
  enum class Mode : uint8_t { Active, Passive };
  Mode mode = Mode::Active;
  uint32_t memory = 0;
  ConstExpr offset;  // Active only
  std::vector<uint8_t> bytes;
};

struct CustomSection {
  std::string name;
  uint64_t offset = 0;         // byte offset of the section's contents in the binary
  std::vector<uint8_t> bytes;  // contents after the name
};

// The `name` custom section, where present and well-formed. Names that are
// absent stay empty; a malformed name section is ignored, as the spec allows.
struct NameSection {
  std::optional<std::string> module_name;
  std::vector<std::pair<uint32_t, std::string>> function_names;  // sorted by index
  std::vector<std::pair<uint32_t, std::vector<std::pair<uint32_t, std::string>>>> local_names;
  std::vector<std::pair<uint32_t, std::string>> global_names;  // extended name section (7)
  std::vector<std::pair<uint32_t, std::string>> data_names;    // extended name section (9)
};

struct Module {
  std::vector<FuncType> types;
  std::vector<Import> imports;
  std::vector<Function> functions;   // defined functions only
  std::vector<TableType> tables;     // defined tables only
  std::vector<MemoryType> memories;  // defined memories only
  std::vector<Global> globals;       // defined globals only
  std::vector<Export> exports;
  std::optional<uint32_t> start;
  uint64_t start_offset = 0;  // byte offset of the start function index in the binary
  std::vector<ElementSegment> elements;
  std::vector<DataSegment> data;
  std::optional<uint32_t> data_count;
  std::vector<CustomSection> custom_sections;
  NameSection names;

  // Counts of imports of each kind; imported entities come first in each index space.
  uint32_t imported_functions = 0;
  uint32_t imported_tables = 0;
  uint32_t imported_memories = 0;
  uint32_t imported_globals = 0;

  uint32_t total_functions() const { return imported_functions + uint32_t(functions.size()); }
  uint32_t total_globals() const { return imported_globals + uint32_t(globals.size()); }
  uint32_t total_tables() const { return imported_tables + uint32_t(tables.size()); }
  uint32_t total_memories() const { return imported_memories + uint32_t(memories.size()); }

  // Type of function `index` in the function index space (imports first).
  const FuncType& function_type(uint32_t index) const;
  // How many values a block, loop or if of this type takes and leaves.
  std::pair<size_t, size_t> block_arity(const BlockType& block) const;
  // Type of global `index` in the global index space.
  GlobalType global_type(uint32_t index) const;
  // The Import behind an imported function/global index, or nullptr for a defined one.
  const Import* imported_function(uint32_t index) const;
  const Import* imported_global(uint32_t index) const;

  // Debug name of function `index` from the name section, or "func[index]".
  std::string function_name(uint32_t index) const;
  // Debug name of global `index` from the name section, or empty.
  std::string global_name(uint32_t index) const;
  const Export* find_export(std::string_view name, ExternalKind kind) const;
};

}  // namespace wasmgpu::wasm
