// wasm to LLVM IR: one kernel and every function it reaches, lowered into an
// LLVM module as the native entry point of cpu/kernel_abi.h. Memory accesses
// follow docs/memory-model.md (stack window, module memory, buffers by wasm
// address, a trap for anything else); traps are recorded, never signalled;
// floats follow docs/float-modes.md in exact mode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "device/device_backend.h"  // spirv::CompileOptions, CallInfo: the device interface's types
#include "frontend/float_mode.h"
#include "frontend/front_end_facts.h"
#include "support/result.h"
#include "wasm/module.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace wasmgpu::cpu {

// The entry point's symbol in the lowered module.
inline constexpr const char* kEntrySymbol = "wasmgpu_cpu_entry";

struct LoweringOptions {
  frontend::FloatMode float_mode = frontend::FloatMode::Exact;
  // Active calls of recursive functions an invocation may have; one more
  // traps CallStackExhausted.
  uint32_t max_call_depth = spirv::kDefaultCallStackDepth;
};

// The symbol of the call entry (kernel_abi.h, CallEntry) for calls[position].
std::string call_symbol(size_t position);

// The module memory's limits (defined or imported), nullopt without one.
std::optional<wasm::Limits> memory_limits(const wasm::Module& module);

// Lowers into `out` (whose context owns the IR) every function `facts`
// reaches: the kernel entry point (kEntrySymbol) when `facts.kernel_function`
// is set, and a call entry for each function index of `calls` (roots of
// `facts`). Everything was accepted by check_cpu_support before.
Status lower_module(const wasm::Module& module, const frontend::FrontEndFacts& facts, const LoweringOptions& options,
                    std::span<const uint32_t> calls, llvm::Module& out);

}  // namespace wasmgpu::cpu
