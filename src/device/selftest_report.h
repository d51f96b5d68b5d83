// What the device self-test found (wasmgpu::SelftestReport, docs/selftest.md):
// per property, what the device's raw instruction gives and what wasmgpu
// does about it.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace wasmgpu::device {

struct SelftestLine {
  std::string property;
  std::string raw;       // "right", "wrong", "kept", "flushed", "absent"
  std::string handling;  // "native", "routed", "refused", "absent"
  std::string how;
  bool correct = true;
  size_t cases = 0;
  bool forced = false;
  std::string raw_detail;
  std::string wasm_detail;
};

struct SelftestReport {
  std::vector<SelftestLine> lines;
  std::string cache;
  std::array<bool, 2> raw_float_controls{};
};

struct SelftestOptions {
  std::vector<std::string> force;
  std::function<void(const std::string&)> progress;
};

}  // namespace wasmgpu::device
