#include "spirv/lowerable.h"

namespace wasmgpu::spirv {

std::optional<std::string> unlowerable_instruction(const wasm::OpcodeInfo& op) {
  if (op.access.kind == wasm::AccessKind::Wait)
    return std::string(op.text) + " (a GPU invocation cannot block or wake another; use wasmgpu_barrier or atomics)";
  return std::nullopt;
}

// Every value type lowers (v128 as a uvec4, docs/compiler.md "SIMD (v128)").
std::optional<std::string> unlowerable_type(wasm::ValType) { return std::nullopt; }

}  // namespace wasmgpu::spirv
