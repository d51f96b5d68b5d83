// Sizing the per-invocation shadow stack of a kernel.
//
// wasm-ld lays out linear memory as [static data from 1024][stack, growing
// down][heap], with the mutable i32 global __stack_pointer initialised to the
// stack's top. Every invocation of a kernel needs its own stack, so addresses
// [window_lo, stack_hi) are translated to a per-invocation slot of slot_size
// bytes (see memory_access.cpp). The window is sized from the code: the
// frames that functions allocate by subtracting constants from the stack
// pointer (whether or not they store the result back: leaf functions at -O0
// do not), summed along the call graph (a recursive function that uses the
// stack gets the whole region); constant addresses inside the stack region
// (frames that wasm-opt folded into fixed addresses) extend it downwards.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "frontend/call_graph.h"
#include "support/result.h"
#include "wasm/module.h"
#include "wasm/operand_flow.h"

namespace wasmgpu::frontend {

struct StackLayout {
  std::optional<uint32_t> stack_pointer;  // global index of __stack_pointer, if any
  // The module's stack region [stack_lo, stack_hi): below the initial stack
  // pointer, above the highest data segment that ends below it (or above
  // wasm-ld's reserved first 1 KiB when there is no data).
  uint32_t stack_lo = 0;
  uint32_t stack_hi = 0;
  // The per-invocation window [window_lo, stack_hi); slot_size == 0 when the
  // kernel touches neither the stack pointer nor the stack region.
  uint32_t window_lo = 0;
  uint32_t slot_size = 0;
  // False when some reachable function moves the stack pointer by an amount
  // the analysis cannot bound; the window is then the whole region.
  bool bounded = true;
};

// wasm-ld's default stack size (-z stack-size): the stack region is at most
// this far below the initial stack pointer; below it lies zero-initialised
// data, which has no data segment.
inline constexpr uint32_t kDefaultStackSize = 65536;

// Margin added to the computed stack need.
inline constexpr uint32_t kStackMargin = 16;

// `graph` must list the kernel's reachable functions (build_call_graph).
// `flows`, when given, holds the operand flow (wasm/operand_flow.h) of each
// of them, built once by the caller; otherwise each is built here.
StackLayout analyse_stack(const wasm::Module& module, const CallGraph& graph,
                          const std::map<uint32_t, wasm::OperandFlow>* flows = nullptr);

// The global that holds the shadow stack pointer, if the module has one.
std::optional<uint32_t> find_stack_pointer(const wasm::Module& module);

}  // namespace wasmgpu::frontend
