// The device probe behind `wasmgpu selftest`: runs each edge case through the
// device's raw instruction (a GLSL shader) and through wasmgpu (a wasm module
// it compiles), and says per property what the device does and what wasmgpu
// does about it. The raw results are cached for the runtime to route on
// (runtime/device_probe_cache.h); docs/selftest.md describes the lines.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device.h"
#include "runtime/device_probe_cache.h"
#include "support/result.h"

namespace wasmgpu::probe {

// What wasmgpu does for a property.
enum class Handling {
  Native,   // the raw instruction, as the probe ran it
  Routed,   // another lowering (exact mode's integer paths, masking, ...)
  Refused,  // the runtime refuses such kernels, naming the property
  Absent,   // the device lacks (or hides) the feature: nothing was run
};
const char* to_string(Handling handling);

struct ProbeLine {
  std::string property;
  // "right" / "wrong"; for subnormals "kept" / "flushed" (or "wrong" when a
  // result is neither); "absent".
  std::string raw;
  Handling handling = Handling::Native;
  std::string how;      // for routed lines: the lowering used
  bool correct = true;  // every result wasmgpu gave is wasm's (a refusal named the property)
  size_t cases = 0;
  bool forced = false;      // the raw results were substituted (WASMGPU_PROBE_FORCE)
  std::string raw_detail;   // the first wrong raw results, and how many there were
  std::string wasm_detail;  // the first wrong wasmgpu result, or the refusal
};

struct ProbeReport {
  std::vector<ProbeLine> lines;
  runtime::ProbeResults results;  // what was cached
  std::string cache;              // the cache file written, or why none was
  // The raw f32 / f64 shaders ran under exact mode's float controls
  // (SignedZeroInfNanPreserve, RoundingModeRTE), which the device offers;
  // else plain.
  std::array<bool, 2> raw_float_controls{};
  bool all_correct() const;
};

struct ProbeOptions {
  // Properties whose raw results are replaced by wrong ones (the test hook
  // WASMGPU_PROBE_FORCE); each must be one of probe_properties().
  std::vector<std::string> force;
  // Called with a line of progress ("raw f64 shader ..."); may be empty.
  std::function<void(const std::string&)> progress;
};

// Every property the probe reports, in report order.
std::vector<std::string> probe_properties();

// WASMGPU_PROBE_FORCE (comma-separated property names); fails on a name that
// is no property, listing them.
Result<std::vector<std::string>> probe_force_from_environment();

// Runs the probe on `device` (a few seconds: every shader is small), writes
// the raw results to the device's cache (when it has one), then runs the wasm
// side, which the runtime compiles with those results in effect.
Result<ProbeReport> run_device_probe(runtime::Device& device, const ProbeOptions& options);

}  // namespace wasmgpu::probe
