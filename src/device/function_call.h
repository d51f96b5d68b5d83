// Vectorised calls of exported functions (any export with scalar parameters
// and results, not only kernels): one invocation per call, each call's
// results or trap read back (abi/launch_abi.h, "Vectorised calls").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "abi/launch_abi.h"
#include "wasm/module.h"

namespace wasmgpu::device {

// A wasm value as its bit pattern: i32/f32 in the low 32 bits.
struct CallValue {
  wasm::ValType type = wasm::ValType::I32;
  uint64_t bits = 0;
};

struct CallRequest {
  std::string export_name;
  std::vector<CallValue> args;
};

struct CallResult {
  bool trapped = false;
  abi::TrapKind trap = abi::TrapKind::Unreachable;
  std::vector<CallValue> values;
  // Where it trapped ("function 'f' (function 3) at module offset 0x1a2"),
  // when the device recorded it; else empty.
  std::string trap_site;
};

}  // namespace wasmgpu::device
