// Internal: the workgroup size of a 1-D launch that gives none (docs/host-api.md,
// "Launch shapes"): a heuristic over the device's description, whether a
// kernel's results can depend on the size (only kernels whose results cannot
// are autotuned), and the autotuner, which times real launches at candidate
// sizes, each launch once, and keeps the fastest per kernel, device, driver and
// size class, in memory and in the device's disk cache.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/device_backend.h"
#include "device/device_description.h"
#include "support/sha256.h"
#include "wasm/module.h"

namespace wasmgpu::detail {

struct HeuristicSize {
  uint32_t size = 0;
  std::string reason;  // "discrete GPU of vendor 0x10de"
};

// The x size for a 1-D launch on `device` whose other dimensions hold
// `other_dims` invocations (SPIR-V shaders that fix y and z): by vendor and
// type, then within the device's limits and at least one subgroup.
HeuristicSize heuristic_workgroup_size(const device::DeviceDescription& device, uint32_t other_dims = 1);

// Whether a kernel's results can depend on its workgroup size.
struct SizeDependence {
  bool depends = true;
  std::string reason;          // why it depends ("calls wasmgpu.local_id"), or why not
  bool uses_barriers = false;  // its 1-D launches must cover whole workgroups
};

// A wasm kernel's results cannot depend on the size when nothing it may call
// reads a local, workgroup or subgroup id, size or count, or waits at a
// workgroup barrier, and its module declares no shared memory (every kernel of
// the module may reach it). Conservative: call_indirect reaches every
// function of a matching type.
SizeDependence wasm_size_dependence(const wasm::Module& module, std::string_view export_name);

// The sizes the autotuner tries, `first` first (the heuristic's), then the
// other powers of two from 64 to 1024 within the device's limits.
std::vector<uint32_t> tuning_candidates(const device::DeviceDescription& device, uint32_t first);

// Launches of n invocations with n in [4^k, 4^(k+1)) share size class k.
uint32_t size_class(uint32_t n);
// Launches of fewer invocations are not tuned (host overhead dominates).
inline constexpr uint32_t kMinTunedInvocations = 4096;

// The autotuner of one device.
class LaunchTuner {
 public:
  // Reads time for the launches it times; tests inject a deterministic one.
  using Clock = std::function<std::chrono::nanoseconds()>;

  explicit LaunchTuner(device::DeviceBackend& backend);

  // The key of `kernel` (the module's identity and the export) at size class
  // `size_class` on this device and driver.
  Sha256Digest key(const Sha256Digest& module_identity, std::string_view kernel, uint32_t size_class) const;

  struct Pick {
    uint32_t size = 0;
    bool tuning = false;  // size is a candidate not timed yet
  };
  // The winner when there is one (in memory or on disk), else the first
  // candidate not timed yet. Changes nothing visible.
  Pick pick(const Sha256Digest& key, std::span<const uint32_t> candidates);
  // A launch of n invocations at `size` ran in `elapsed`; once every
  // candidate has run, the fastest per invocation wins and is cached.
  void report(const Sha256Digest& key, uint32_t size, uint32_t n, std::chrono::nanoseconds elapsed);

  Clock clock;

 private:
  struct State {
    std::vector<uint32_t> candidates;
    std::vector<std::optional<double>> ns_per_invocation;  // by candidate
    std::optional<uint32_t> winner;
    bool disk_checked = false;
  };
  device::DeviceBackend& backend_;
  std::map<Sha256Digest, State> states_;
};

// The cache folder and the payload of a winner (exposed for tests).
inline constexpr std::string_view kLaunchShapeCacheFolder = "launch";
std::vector<uint8_t> encode_tuned_size(uint32_t size);
std::optional<uint32_t> decode_tuned_size(std::span<const uint8_t> payload);

}  // namespace wasmgpu::detail
