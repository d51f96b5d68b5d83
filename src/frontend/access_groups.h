// Groups of memory accesses from one base address (docs/compiler.md,
// "Access groups"). Within straight-line code, loads or stores whose
// addresses are the same local plus different constants (`p[0]`, `p[1]`,
// `p->y`, a row of a shared tile, the fields of a struct written back) can
// share one range check and be done together, as one vector access where
// they are contiguous and aligned. This pass finds them in the wasm code,
// before lowering; grouped_accesses.cpp decides whether a group's members can
// take a grouped path and emits it.
//
// Loads are issued at the first member (the leader). That is sound because
// between the leader and the last member there is no store, call, atomic,
// memory or table operation, branch or join, global.set, or instruction that
// can trap other than a load (whose only trap is an out-of-bounds access, the
// same trap whichever load reports it first); and the base local is not
// written. So every member reads the same memory at the same address it
// would read in place.
//
// Stores are done at the last member. Between the first and the last there
// is nothing but the later members' own operands, computed by instructions
// that neither trap nor touch memory; so no one can observe that the earlier
// members were held back.
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/module.h"
#include "wasm/operand_flow.h"

namespace wasmgpu::frontend {

struct GroupMember {
  uint32_t ip = 0;        // instruction index in the function body
  int64_t delta = 0;      // effective address minus the first member's, when no address wraps
  uint32_t constant = 0;  // C minus the first member's C, modulo 2^32
  uint32_t offset = 0;    // the access's offset O
  uint32_t width = 0;     // 4 or 8 bytes
};

struct AccessGroup {
  std::vector<GroupMember> members;  // in code order
};

struct AccessGroups {
  std::vector<AccessGroup> groups;  // each with two members or more
  std::vector<int32_t> group_of;    // per instruction index: index into groups, or -1
};

// Addresses a member may take, as the operand flow `flow` (wasm/operand_flow.h)
// of `body` tells what computes the address operand, wherever in the code that
// is: a read of a local L (local.get, local.tee), or L + i32.const C by an
// i32.add (either operand order), plus the access's offset O; or the sum of
// two locals' values. A local that holds another's value plus a constant
// (set from such a sum, and not written since) counts as that local.
// Members of one group have the same C (offsets differ) or all have O = 0
// (constants differ): either way a member's address is the first member's
// plus a constant, without wrapping, whenever that sum lies below 2^32, which
// the grouped range check establishes. In general, a member's effective
// address is u32(first member's address - its O + constant) + O. Spans are at
// most kMaxAccessGroupSpan bytes.
AccessGroups find_load_groups(const std::vector<wasm::Instr>& body, const wasm::OperandFlow& flow);
// Stores that follow one another directly: the code between two stores is
// the later one's address and value operands, computed there.
AccessGroups find_store_groups(const std::vector<wasm::Instr>& body, const wasm::OperandFlow& flow);

inline constexpr int64_t kMaxAccessGroupSpan = 256;

}  // namespace wasmgpu::frontend
