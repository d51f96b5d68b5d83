// Where in a module a byte offset of its binary lies: which function's body
// holds the instruction there. Trap sites (CompileOptions::trap_sites) are
// recorded as such offsets, the ones `wasm-objdump -d` prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wasm/module.h"

namespace wasmgpu::wasm {

// The index (imports counted) of the defined function whose body has an
// instruction at `offset`; nullopt when no instruction starts there.
std::optional<uint32_t> function_at_offset(const Module& module, uint32_t offset);

// "function 'name' (function 3) at module offset 0x1a2", or "module offset
// 0x1a2" when no function's instruction starts there.
std::string describe_code_site(const Module& module, uint32_t offset);

// "accessing 4 bytes at address 0x3590": a trapping memory access, named after
// its wasm effective address (the one the module computed, offset included).
std::string describe_access(uint64_t address, uint32_t bytes);

}  // namespace wasmgpu::wasm
