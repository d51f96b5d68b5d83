#include "wgsl/lowerable.h"

namespace wasmgpu::wgsl {

std::optional<std::string> unlowerable_instruction(const wasm::OpcodeInfo& op) {
  if (op.cls == wasm::OpcodeClass::Vector) return "v128 (SIMD instruction " + std::string(op.text) + ")";
  if (op.access.kind == wasm::AccessKind::Wait)
    return std::string(op.text) + " (a GPU invocation cannot block or wake another; use wasmgpu_barrier or atomics)";
  return std::nullopt;
}

std::optional<std::string> unlowerable_type(wasm::ValType type) {
  if (type == wasm::ValType::V128) return "v128 (SIMD is not supported yet)";
  return std::nullopt;
}

}  // namespace wasmgpu::wgsl
