// The funcref table that call_indirect reads, known at compile time: table 0
// as its active element segments leave it after instantiation. Tables are
// immutable at run time (table.set/grow/init/copy are refused), so
// call_indirect becomes a switch over the table's slots (function_lowering).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

struct StaticTable {
  // One entry per slot: the function index, or nullopt for a null slot.
  std::vector<std::optional<uint32_t>> slots;
};

// Builds table 0 from the module's active element segments. Fails for an
// imported table, a segment offset that is not an i32 constant, an element
// that is not ref.func/ref.null, or a segment that does not fit (which would
// fail instantiation).
Result<StaticTable> build_static_table(const wasm::Module& module);

// Functions that call_indirect with type `type_index` may reach: those in the
// table whose type matches structurally.
std::vector<uint32_t> indirect_callees(const wasm::Module& module, const StaticTable& table,
                                       uint32_t type_index);

}  // namespace wasmgpu::spirv
