// What the device probe (`wasmgpu selftest`, probe/device_probe.h) found a
// device's native instructions doing, cached on disk per device, driver and
// host CPU, so that the runtime can route around what a device gets wrong
// without running anything when a Device opens (docs/selftest.md).
//
// The entry lives in the cache directory's probe/ folder, one file per key:
// the device (name, vendor and device id), the driver (id, name, info text,
// version), the host CPU's features (host_cpu.h: lavapipe compiles for the
// host CPU, and the same driver gave different f64 rounding on two CPUs) and
// the probe's format version, and whether the device presents f64, int64 and
// subgroup votes (WASMGPU_HIDE_FEATURES can hide them). No entry: the runtime routes nothing, as
// before any probe ran.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device_info.h"
#include "runtime/disk_cache.h"
#include "spirv/compiler.h"
#include "support/result.h"
#include "support/sha256.h"

namespace wasmgpu::runtime {

// Properties the runtime acts on (the probe measures more; see its report).
// f64 + - * with subnormal operands or results: kept, or flushed to zero.
inline constexpr std::string_view kProbeF64Subnormals = "f64_subnormals";
// Shared memory written, a workgroup barrier, then read by another invocation.
inline constexpr std::string_view kProbeWorkgroupBarrier = "workgroup_barrier";

// What the raw instruction gave for one property.
enum class ProbeRaw {
  Right,   // every case gave wasm's bits
  Wrong,   // some case differed (for subnormals: flushed)
  Absent,  // not probed: the device lacks (or hides) the feature
};

struct ProbedProperty {
  std::string name;
  ProbeRaw raw = ProbeRaw::Right;
  // The wrong result was substituted by WASMGPU_PROBE_FORCE, not measured.
  bool forced = false;
};

struct ProbeResults {
  std::vector<ProbedProperty> properties;

  // Probed and found wrong.
  bool wrong(std::string_view name) const;
  // Probed and found right (a property not in the results is neither).
  bool right(std::string_view name) const;
};

// "right", "wrong", "absent".
const char* to_string(ProbeRaw raw);

// The entry's key for this device and driver on a host CPU with `cpu_features`.
Sha256Digest probe_cache_key(const DeviceInfo& device, std::string_view cpu_features);
// Where the entry lies under `cache`'s directory.
std::filesystem::path probe_cache_path(const DiskCache& cache, const DeviceInfo& device, std::string_view cpu_features);

// One line per property: "name right|wrong|absent[ forced]". Exposed for tests.
std::vector<uint8_t> encode_probe_results(const ProbeResults& results);
std::optional<ProbeResults> decode_probe_results(std::span<const uint8_t> payload);

// The cached results for this device on this host; nullopt when none (or the
// entry fails its checks). Reads one small file.
std::optional<ProbeResults> read_cached_probe(const DiskCache& cache, const DeviceInfo& device,
                                              std::string_view cpu_features);
// Writes the entry atomically (disk_cache.h).
Status write_cached_probe(DiskCache& cache, const DeviceInfo& device, std::string_view cpu_features,
                          const ProbeResults& results);

// Ok unless the runtime refuses `kernel` on a device with these results, and
// then why (Unsupported, naming the property): kernels with workgroup
// barriers, where barriers were found wrong.
Status check_probe_results(const ProbeResults& results, const spirv::KernelInfo& kernel, std::string_view device_name);

}  // namespace wasmgpu::runtime
