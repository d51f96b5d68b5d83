// The WebAssembly 2.0 binary decoder: bytes -> Module, rejecting malformed
// input with the byte offset and the spec's reason.
#pragma once

#include <cstdint>
#include <span>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::wasm {

// Decodes a module binary. Checks the binary format only (malformedness);
// run validate() (validator.h) before trusting the result.
Result<Module> decode(std::span<const uint8_t> bytes);

// decode() followed by validate(): the usual entry point.
Result<Module> decode_and_validate(std::span<const uint8_t> bytes);

// Implementation limit on the number of locals one module may declare in
// total (the spec allows up to 2^32-1 per function, which would need that
// many bytes once expanded into Function::locals).
inline constexpr uint64_t kMaxExpandedLocalsPerModule = uint64_t(1) << 24;

}  // namespace wasmgpu::wasm
