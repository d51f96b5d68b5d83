#include "cpu/lowerable.h"

namespace wasmgpu::cpu {

std::optional<std::string> unlowerable_instruction(const wasm::OpcodeInfo& op) {
  if (op.access.kind == wasm::AccessKind::Wait)
    return std::string(op.text) + " (a GPU invocation cannot block or wake another; use wasmgpu_barrier or atomics)";
  return std::nullopt;
}

std::optional<std::string> unlowerable_type(wasm::ValType) { return std::nullopt; }

}  // namespace wasmgpu::cpu
