#include "runtime/host_cpu.h"

#include <sys/utsname.h>

#include <fstream>
#include <string_view>

namespace wasmgpu::runtime {
namespace {

// The value of the first "flags" (x86) or "Features" (Arm) line: every
// processor lists the same set, and the first is enough.
std::string cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view text(line);
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = text.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    if (key != "flags" && key != "Features") continue;
    std::string_view value = text.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    return std::string(value);
  }
  return "unknown";
}

std::string read_host_cpu_features() {
  utsname name{};
  const std::string machine = uname(&name) == 0 ? name.machine : "unknown";
  return machine + ": " + cpuinfo_flags();
}

}  // namespace

const std::string& host_cpu_features() {
  static const std::string features = read_host_cpu_features();
  return features;
}

}  // namespace wasmgpu::runtime
