// Groups of loads from one base address (docs/compiler.md, "Load groups").
// Within straight-line code, loads whose addresses are the same local plus
// different constants (`p[0]`, `p[1]`, `p->y`, a row of a shared tile) can
// share one range check and be issued together, as one vector load where
// they are contiguous and aligned. This pass finds them in the wasm code,
// before lowering; memory_access.cpp decides whether a group's members can
// take a grouped path and emits it at the first member (the leader).
//
// What makes issuing the members at the leader sound: between the leader and
// the last member there is no store, call, atomic, memory or table operation,
// control flow, global.set, or instruction that can trap other than a load
// (whose only trap is an out-of-bounds access, the same trap whichever load
// reports it first); and the base local is not written. So every member reads
// the same memory at the same address it would read in place.
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/module.h"

namespace wasmgpu::spirv {

struct LoadGroupMember {
  uint32_t ip = 0;        // instruction index in the function body
  int64_t delta = 0;      // effective address minus the leader's, when no address wraps
  uint32_t constant = 0;  // C minus the leader's C, modulo 2^32
  uint32_t offset = 0;    // the load's offset O
  uint32_t width = 0;     // 4 or 8 bytes
};

struct LoadGroup {
  std::vector<LoadGroupMember> members;  // in code order; members[0] is the leader (delta 0)
};

struct LoadGroups {
  std::vector<LoadGroup> groups;     // each with two members or more
  std::vector<int32_t> group_of;     // per instruction index: index into groups, or -1
};

// Addresses a member may take: `local.get|tee L` or `local.get|tee L;
// i32.const C; i32.add` (either operand order), plus the load's offset O.
// Members of one group have the same C (offsets differ) or all have O = 0
// (constants differ): either way a member's address is the leader's plus a
// constant, without wrapping, whenever that sum lies below 2^32, which the
// grouped range check establishes. In general, a member's effective address
// is u32(leader's address - leader's O + constant) + O. Spans are at most
// kMaxLoadGroupSpan bytes.
LoadGroups find_load_groups(const std::vector<wasm::Instr>& body);

inline constexpr int64_t kMaxLoadGroupSpan = 256;

}  // namespace wasmgpu::spirv
