// Vectorised calls: any exported function run over many argument tuples in
// one launch, one invocation per call (abi/launch_abi.h, "Vectorised calls").
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "abi/launch_abi.h"
#include "wasm/module.h"

namespace wasmgpu::runtime {

// A wasm value as its bit pattern: i32/f32 in the low 32 bits.
struct Value {
  wasm::ValType type = wasm::ValType::I32;
  uint64_t bits = 0;

  static Value i32(uint32_t v) { return {wasm::ValType::I32, v}; }
  static Value i64(uint64_t v) { return {wasm::ValType::I64, v}; }
  static Value f32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return {wasm::ValType::F32, b};
  }
  static Value f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return {wasm::ValType::F64, b};
  }
  friend bool operator==(const Value&, const Value&) = default;
};

// What one call did: returned `values`, or trapped with `trap`.
struct CallResult {
  bool trapped = false;
  abi::TrapKind trap = abi::TrapKind::Unreachable;
  // The trapping instruction's module offset, when the module was compiled
  // with CompileOptions::trap_sites.
  std::optional<uint32_t> trap_site;
  // Its trapping memory access, under trap_sites (address abi::kNoTrapAddress
  // for a trap of no access).
  uint64_t trap_address = abi::kNoTrapAddress;
  uint32_t trap_bytes = 0;
  std::vector<Value> values;
};

// One call of a batch: an export and its arguments.
struct CallRequest {
  std::string export_name;
  std::vector<Value> args;
};

// "42", "-1.5", "nan:0x400000" style text of a value, for messages: integers
// as signed decimal, floats in decimal with a hex-float form when inexact.
std::string to_string(const Value& value);

}  // namespace wasmgpu::runtime
