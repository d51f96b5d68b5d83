// The host's clocks in nanoseconds, as kernels read them through WASI's
// clock_time_get (abi::kHostClockRealtime): the runtime samples them when
// it records a launch.
#pragma once

#include <cstdint>
#include <ctime>

namespace wasmgpu {

inline uint64_t host_clock_ns(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return uint64_t(now.tv_sec) * 1'000'000'000u + uint64_t(now.tv_nsec);
}

}  // namespace wasmgpu
