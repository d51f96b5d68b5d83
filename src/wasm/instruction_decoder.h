// Decoding of instruction sequences (function bodies and constant
// expressions) into Instr records, with the block bookkeeping of module.h.
#pragma once

#include <cstdint>
#include <vector>

#include "support/result.h"
#include "wasm/binary_reader.h"
#include "wasm/module.h"

namespace wasmgpu::wasm {

struct ExpressionContext {
  // Whether the module has a data count section: memory.init and data.drop
  // are malformed without one.
  bool has_data_count = false;
  // Whether memory immediates carry memory indices (multi-memory). The
  // decoder sets it when the module declares more than one memory: a module
  // with at most one keeps the 2.0 encoding, where memory.size/grow/fill/
  // copy/init take reserved zero bytes and bit 6 of a memarg's flags is
  // part of the alignment (the 2.0 spec suite requires both).
  bool multi_memory = false;
};

// Reads instructions up to and including the `end` that closes the
// expression, appending them to `instrs` (br_table targets to `br_tables`).
Status decode_expression(BinaryReader& reader, const ExpressionContext& context, std::vector<Instr>& instrs,
                         std::vector<std::vector<uint32_t>>& br_tables);

// Reads a value type byte; "malformed value type" on anything else.
Result<ValType> decode_value_type(BinaryReader& reader);
// Reads a reference type byte; "malformed reference type" on anything else.
Result<ValType> decode_reference_type(BinaryReader& reader);
bool is_value_type_byte(uint8_t byte);

}  // namespace wasmgpu::wasm
