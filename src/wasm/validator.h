// Validation of a decoded module against the WebAssembly 2.0 rules.
#pragma once

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::wasm {

// Checks every rule of the spec's validation chapter: index bounds, limits,
// constant expressions, and the typing of every function body. Errors name
// the byte offset of the offending instruction or entry where there is one.
Status validate(const Module& module);

}  // namespace wasmgpu::wasm
