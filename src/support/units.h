// Sizes and durations as messages print them.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace wasmgpu {

// "12 bytes", "1 byte", "64 KiB", "1.5 MiB" (binary units up to TiB).
std::string format_bytes(uint64_t bytes);
// "0.25 s", "60 s" (six significant digits).
std::string format_seconds(std::chrono::nanoseconds duration);

}  // namespace wasmgpu
