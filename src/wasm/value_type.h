// The value types of WebAssembly, by their binary encoding.
#pragma once

#include <cstdint>

namespace wasmgpu::wasm {

enum class ValType : uint8_t {
  I32 = 0x7F,
  I64 = 0x7E,
  F32 = 0x7D,
  F64 = 0x7C,
  V128 = 0x7B,
  FuncRef = 0x70,
  ExternRef = 0x6F,
};

const char* to_string(ValType type);

}  // namespace wasmgpu::wasm
