// What a finished launch reports about its traps.
#pragma once

#include <cstdint>
#include <optional>

#include "abi/launch_abi.h"

namespace wasmgpu::device {

struct TrapReport {
  uint32_t trapped_invocations = 0;
  // The kind of the lowest trapping invocation; nullopt when only a count
  // was recorded.
  std::optional<abi::TrapKind> kind;
  uint32_t invocation = abi::kNoTrapIndex;  // lowest trapping invocation
  // Where one trapping invocation (site_invocation) trapped, when the device
  // recorded it: "function 'f' (function 3) at module offset 0x1a2".
  std::string site;
  uint32_t site_invocation = abi::kNoTrapIndex;
};

}  // namespace wasmgpu::device
