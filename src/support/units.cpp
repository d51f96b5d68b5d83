#include "support/units.h"

#include <cstdio>

namespace wasmgpu {

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  double value = double(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (value == double(uint64_t(value)))
    std::snprintf(text, sizeof text, "%llu %s", static_cast<unsigned long long>(value), kUnits[unit]);
  else
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

std::string format_seconds(std::chrono::nanoseconds duration) {
  const double seconds = std::chrono::duration<double>(duration).count();
  char text[48];
  std::snprintf(text, sizeof text, "%.6g s", seconds);
  return text;
}

}  // namespace wasmgpu
