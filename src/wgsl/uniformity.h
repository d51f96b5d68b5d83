// WGSL's barriers (workgroupBarrier, storageBarrier) must be called in
// uniform control flow, and Tint refuses a shader where its uniformity
// analysis cannot prove that. This is a conservative check on the wasm of
// every function that reaches a barrier: it refuses, naming the function and
// the reason, a barrier (or a call to a function that has one) it cannot
// prove uniform, rather than writing WGSL that Dawn rejects. It also says
// which loops hold barriers: those are written without the trapped exit
// (`break if trapped`), which Tint would see as a non-uniform exit
// (docs/webgpu.md, "Barriers").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "frontend/call_graph.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::wgsl {

struct BarrierFacts {
  // Functions that call a barrier (wasmgpu_barrier, the memory barriers,
  // atomic.fence), directly or through calls.
  std::set<uint32_t> barrier_functions;
  // Per function, the instruction index of each `loop` that holds such a call.
  std::map<uint32_t, std::set<size_t>> barrier_loops;

  bool kernel_has_barriers(uint32_t kernel) const { return barrier_functions.count(kernel) != 0; }
  bool is_barrier_loop(uint32_t function, size_t at) const {
    auto found = barrier_loops.find(function);
    return found != barrier_loops.end() && found->second.count(at) != 0;
  }
};

// Whether a call of `callee` (function index space) is one the WGSL back end
// writes as a control barrier: wasmgpu.barrier, memory_barrier and
// workgroup_memory_barrier.
bool is_barrier_intrinsic(const wasm::Module& module, uint32_t callee);

// The functions of `graph` that reach a barrier, and their loops that hold one.
BarrierFacts find_barriers(const wasm::Module& module, const frontend::CallGraph& graph);

// Checks every function of `graph` (no recursion) that reaches a barrier,
// from `kernel` down: the kernel's parameter 0 (the invocation index)
// differs between invocations, the others are launch words, the same for all.
Status check_barrier_uniformity(const wasm::Module& module, const frontend::CallGraph& graph, uint32_t kernel,
                                const BarrierFacts& facts);

}  // namespace wasmgpu::wgsl
