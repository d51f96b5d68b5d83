// Recursion without SPIR-V recursion. SPIR-V forbids a function to reach
// itself, so each recursive strongly connected component of the call graph
// (call_graph.h) becomes one SPIR-V function running a state machine over the
// basic blocks of all its members, with an explicit per-invocation call stack
// (docs/compiler.md, "Recursion"). Functions outside recursive components are
// lowered as before and cost nothing extra.
#pragma once

#include <cstdint>
#include <vector>

#include "spirv/kernel_context.h"
#include "support/result.h"

namespace wasmgpu::spirv {

// Largest call stack one component may have per invocation; a depth that needs
// more is refused at compile time.
inline constexpr uint64_t kMaxCallStackBytes = 16u << 20;

// Emits the state machine of the component `members` (function indices) and,
// for every member, a small SPIR-V function with the member's own signature
// (id k.function_ids[member]) that enters the machine at that member, so
// callers outside the component call members as usual. A call inside the
// component pushes a frame; pushing frame `max_depth` + 1 traps
// CallStackExhausted. The call stack (max_depth times the largest frame) is
// appended to the invocation's stack slot (k.stack_slot_size grows); returns
// its size in bytes.
Result<uint32_t> lower_recursive_component(KernelContext& k, const std::vector<uint32_t>& members, uint32_t max_depth);

}  // namespace wasmgpu::spirv
