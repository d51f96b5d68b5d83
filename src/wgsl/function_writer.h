// One wasm function as one WGSL function (docs/webgpu.md, "Control flow"):
// every stack value a `let`, every local a `var`, and wasm's labels as WGSL
// loops with a `pending` variable for branches that leave several at once.
// What the back end cannot write yet is refused, naming the function.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "support/result.h"
#include "wasm/module.h"
#include "wgsl/atomic_helpers.h"
#include "wgsl/uniformity.h"

namespace wasmgpu::wgsl {

// The WGSL name of function `index` (function index space).
std::string function_symbol(uint32_t index);
// WGSL type of a wasm value type the back end handles (i32, f32), or
// nullptr for the others.
const char* value_type(wasm::ValType type);

// What a function's WGSL needs from the rest of the shader.
struct FunctionUses {
  bool subgroups = false;          // `enable subgroups;` and the built-ins in main
  std::set<AtomicHelper> atomics;  // atomic_helpers.h
};

// Writes defined function `index` of the validated `module` (not
// recursive, not an import): its result struct when it returns several
// values, then the function. Loops that `barriers` says hold a barrier are
// written without the trapped exit (uniformity.h). Adds what it needs to
// `uses`.
Result<std::string> write_function(const wasm::Module& module, uint32_t index, const BarrierFacts& barriers,
                                   FunctionUses& uses);

}  // namespace wasmgpu::wgsl
