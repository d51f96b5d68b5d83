// What the compiler knows about a module's tables before run time. Tables
// themselves live in the module instance's InstanceState (abi/launch_abi.h,
// instance_state.h): arrays of function indices that table.set/init/copy/
// fill/grow change at run time and that persist across launches. This file
// says which functions a slot may ever hold (what call_indirect may reach),
// what each element segment contains, and how many slots a table reserves.
#pragma once

#include <cstdint>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::frontend {

// The functions a table slot may ever hold: every function an element
// segment names or `ref.func` produces (in a function body or a global's
// initialiser). Nothing else can reach a table: the host passes no
// references and imported tables are refused. Sorted, without duplicates.
struct IndirectCallTargets {
  std::vector<uint32_t> functions;
};

// Fails for a module that imports a table (the host could store any function).
Result<IndirectCallTargets> indirect_call_targets(const wasm::Module& module);

// The targets call_indirect with type `type_index` may call: those whose
// type matches structurally (a call to any other traps as a type mismatch).
std::vector<uint32_t> indirect_callees(const wasm::Module& module, const IndirectCallTargets& targets,
                                       uint32_t type_index);

// An element segment's items as table slots hold them: the function index,
// or abi::kNullRef for a null reference. Fails for an item that reads an
// (imported) global, whose reference the host would have to supply.
Result<std::vector<uint32_t>> element_items(const wasm::ElementSegment& segment);

// Most slots one table may reserve (its InstanceState grows by 4 bytes each).
inline constexpr uint32_t kMaxTableSlots = 1u << 22;
// Slots a table reserves beyond its initial size for table.grow, when its
// declared maximum allows as many.
inline constexpr uint32_t kTableGrowthSlots = 1024;

// Slots reserved for `table`: its initial size plus what table.grow may add
// (up to its maximum, at most kTableGrowthSlots), capped at kMaxTableSlots.
// table.grow beyond the reserve fails (returns -1), as wasm allows.
uint32_t table_capacity(const wasm::TableType& table);

}  // namespace wasmgpu::frontend
