// wasm to LLVM IR: one kernel and every function it reaches, lowered into an
// LLVM module as the native entry point of cpu/kernel_abi.h. Memory accesses
// follow docs/memory-model.md (stack window, module memory, buffers by wasm
// address, a trap for anything else); traps are recorded, never signalled;
// floats follow docs/float-modes.md in exact mode.
#pragma once

#include <cstdint>
#include <string>

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

// Lowers the kernel `facts.kernel_function` of `module` (already accepted by
// check_cpu_support) into `out`, whose context owns the IR.
Status lower_kernel(const wasm::Module& module, const frontend::FrontEndFacts& facts, frontend::FloatMode float_mode,
                    llvm::Module& out);

}  // namespace wasmgpu::cpu
