// One wasm function as one WGSL function (docs/webgpu.md, "Control flow"):
// every stack value a `let`, every local a `var`, and wasm's labels as WGSL
// loops with a `pending` variable for branches that leave several at once.
// What the back end cannot write yet is refused, naming the function.
#pragma once

#include <cstdint>
#include <string>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::wgsl {

// The WGSL name of function `index` (function index space).
std::string function_symbol(uint32_t index);
// WGSL type of a wasm value type the back end handles (i32, f32), or
// nullptr for the others.
const char* value_type(wasm::ValType type);

// Writes defined function `index` of the validated `module` (not
// recursive, not an import): its result struct when it returns several
// values, then the function.
Result<std::string> write_function(const wasm::Module& module, uint32_t index);

}  // namespace wasmgpu::wgsl
