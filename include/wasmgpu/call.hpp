// Calls of exported functions: any export whose parameters and results are
// i32, i64, f32 or f64 (not only kernels), run on the device once per
// argument tuple, all in one launch, one invocation each.
//
//   std::vector<wasmgpu::Value> args = {wasmgpu::Value::i32(1), wasmgpu::Value::i32(2)};
//   std::vector<wasmgpu::CallResult> results = module.call("add", {{args}});
//   results[0].values[0].bits == 3
//
// A call that traps is a result (CallResult::trapped), not an exception:
// the other calls of the launch still report theirs. Calls run concurrently
// in no defined order, and the module's memory and globals persist across
// calls and launches, as calls of one wasm instance would see them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "wasmgpu/interface.hpp"

namespace wasmgpu {

// A wasm value as its bit pattern: i32 and f32 in the low 32 bits. `type`
// is I32, I64, F32 or F64.
struct Value {
  ScalarType type = ScalarType::I32;
  uint64_t bits = 0;

  static Value i32(uint32_t v) { return {ScalarType::I32, v}; }
  static Value i64(uint64_t v) { return {ScalarType::I64, v}; }
  static Value f32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return {ScalarType::F32, b};
  }
  static Value f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return {ScalarType::F64, b};
  }
  friend bool operator==(const Value&, const Value&) = default;
};

// What one call did: returned `values` (in the function's result order), or
// trapped with `trap`, named as TrapError::trap() names it ("unreachable",
// "integer divide by zero", ...).
struct CallResult {
  bool trapped = false;
  std::string trap;
  std::vector<Value> values;
  // Where it trapped, when the module was loaded with ModuleOptions::trap_sites
  // on a device that records it: "function 'f' (function 3) at module offset 0x1a2".
  std::string trap_site;
};

// What calling an export takes and may do (Module::function_info).
struct FunctionInfo {
  std::vector<ScalarType> params;
  std::vector<ScalarType> results;
  // Whether a call may write memory or globals, grow memory or drop a data
  // segment (a conservative analysis of everything it may call). Calls
  // without side effects cannot observe each other, so one launch may hold
  // many of them in any order.
  bool has_side_effects = true;
};

// One call of a batch of calls of several exports (Module::call).
struct Call {
  std::string function;
  std::vector<Value> args;
};

}  // namespace wasmgpu
