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
};

}  // namespace wasmgpu::device
