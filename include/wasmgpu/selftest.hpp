// The device self-test behind `wasmgpu selftest` (docs/selftest.md): runs
// each edge case twice, through the device's raw instruction (a GLSL shader)
// and through a wasm module wasmgpu compiles, and says per property what the
// device gives and what wasmgpu does about it. The raw results are cached
// per device, driver and host CPU; kernels compiled afterwards are routed by
// them (a device found flushing f64 subnormals gets the integer path).
//
//   wasmgpu::Device device = wasmgpu::Device::open();
//   wasmgpu::SelftestReport report = wasmgpu::selftest(device);
//   if (!report.all_correct()) ...   // a line has correct == false
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace wasmgpu {

class Device;

struct SelftestLine {
  std::string property;  // "f32_arith", "f64_trunc", "i32_shift", "atomic_add", ...
  // What the raw instruction gave: "right" or "wrong" (subnormals: "kept"
  // or "flushed"), "absent" when the device lacks or hides the feature.
  std::string raw;
  // What wasmgpu does: "native" (that instruction), "routed" (another
  // lowering, named by `how`), "refused" (such kernels are refused, naming
  // the property), "absent".
  std::string handling;
  std::string how;
  bool correct = true;  // every result wasmgpu gave is wasm's (a refusal counts as right)
  size_t cases = 0;
  bool forced = false;      // the raw results were replaced (SelftestOptions::force)
  std::string raw_detail;   // the first wrong raw results, and how many
  std::string wasm_detail;  // the first wrong wasmgpu result, or the refusal
};

struct SelftestReport {
  std::vector<SelftestLine> lines;  // one per property, in report order
  std::string cache;                // the cache file written, or why none was
  // Whether the raw f32 / f64 shaders ran under exact mode's float controls
  // (the device offers them), else plain.
  std::array<bool, 2> raw_float_controls{};
  bool all_correct() const {
    return std::all_of(lines.begin(), lines.end(), [](const SelftestLine& l) { return l.correct; });
  }
};

struct SelftestOptions {
  // Properties whose raw results are replaced by wrong ones, to test the
  // routing on any device (selftest_force_from_environment()).
  std::vector<std::string> force;
  // Called with a line of progress ("raw f64 shader ..."); may be empty.
  std::function<void(const std::string&)> progress;
};

// Runs the self-test on `device` (a few seconds) and caches its raw results.
// Throws Unsupported for a device without a self-test, NotFound for an
// unknown property in `force` (listing the properties).
SelftestReport selftest(Device& device, const SelftestOptions& options = {});

// WASMGPU_PROBE_FORCE (comma-separated property names), the test hook for
// SelftestOptions::force; throws NotFound naming a property there is not,
// with the list of properties.
std::vector<std::string> selftest_force_from_environment();

// The host's machine and processor features ("x86_64: fpu vme ... avx2"),
// part of the key of the self-test's cached results.
std::string host_cpu_features();

}  // namespace wasmgpu
