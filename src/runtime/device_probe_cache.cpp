#include "runtime/device_probe_cache.h"

#include <cstring>

namespace wasmgpu::runtime {
namespace {

// Bump when the probe's cases or the payload change meaning: old entries
// then miss instead of being read with the new meaning.
constexpr std::string_view kProbeFormat = "wasmgpu device probe 1";
constexpr std::string_view kFolder = "probe";

void add_part(Sha256& hash, std::string_view part) {
  const uint64_t size = part.size();
  hash.update(&size, sizeof size);
  hash.update(part);
}

}  // namespace

bool ProbeResults::wrong(std::string_view name) const {
  for (const ProbedProperty& p : properties)
    if (p.name == name) return p.raw == ProbeRaw::Wrong;
  return false;
}

bool ProbeResults::right(std::string_view name) const {
  for (const ProbedProperty& p : properties)
    if (p.name == name) return p.raw == ProbeRaw::Right;
  return false;
}

const char* to_string(ProbeRaw raw) {
  switch (raw) {
    case ProbeRaw::Right: return "right";
    case ProbeRaw::Wrong: return "wrong";
    case ProbeRaw::Absent: return "absent";
  }
  return "absent";
}

Sha256Digest probe_cache_key(const DeviceInfo& device, std::string_view cpu_features) {
  Sha256 hash;
  add_part(hash, kProbeFormat);
  add_part(hash, device.name);
  add_part(hash, std::to_string(device.vendor_id) + ":" + std::to_string(device.device_id));
  add_part(hash, std::to_string(device.driver_id) + ":" + std::to_string(device.driver_version));
  add_part(hash, device.driver_name);
  add_part(hash, device.driver_info);
  add_part(hash, cpu_features);
  // The features the probe's shaders need, as the device presents them
  // (WASMGPU_HIDE_FEATURES hides some): a probe that found them absent must
  // not stand in for one that ran them.
  const DeviceFeatures& f = device.features;
  add_part(hash, std::string{char('0' + f.shader_float64), char('0' + f.shader_int64), char('0' + f.subgroup_vote)});
  return hash.finish();
}

std::filesystem::path probe_cache_path(const DiskCache& cache, const DeviceInfo& device,
                                       std::string_view cpu_features) {
  return cache.directory() / kFolder / (to_hex(probe_cache_key(device, cpu_features)) + ".bin");
}

std::vector<uint8_t> encode_probe_results(const ProbeResults& results) {
  std::string text;
  for (const ProbedProperty& p : results.properties) {
    text += p.name + " " + to_string(p.raw);
    if (p.forced) text += " forced";
    text += "\n";
  }
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::optional<ProbeResults> decode_probe_results(std::span<const uint8_t> payload) {
  ProbeResults results;
  std::string_view text(reinterpret_cast<const char*>(payload.data()), payload.size());
  while (!text.empty()) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) return std::nullopt;  // every line ends with a newline
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    ProbedProperty p;
    const size_t space = line.find(' ');
    if (space == 0 || space == std::string_view::npos) return std::nullopt;
    p.name = std::string(line.substr(0, space));
    std::string_view rest = line.substr(space + 1);
    constexpr std::string_view kForced = " forced";
    if (rest.ends_with(kForced)) {
      p.forced = true;
      rest.remove_suffix(kForced.size());
    }
    if (rest == "right")
      p.raw = ProbeRaw::Right;
    else if (rest == "wrong")
      p.raw = ProbeRaw::Wrong;
    else if (rest == "absent")
      p.raw = ProbeRaw::Absent;
    else
      return std::nullopt;
    results.properties.push_back(std::move(p));
  }
  return results;
}

std::optional<ProbeResults> read_cached_probe(const DiskCache& cache, const DeviceInfo& device,
                                              std::string_view cpu_features) {
  const Sha256Digest key = probe_cache_key(device, cpu_features);
  DiskCache::ReadResult read = cache.read(kFolder, to_hex(key) + ".bin", CacheEntryKind::DeviceProbe, key);
  if (read.status != DiskCache::ReadStatus::Hit) return std::nullopt;
  return decode_probe_results(read.payload);
}

Status write_cached_probe(DiskCache& cache, const DeviceInfo& device, std::string_view cpu_features,
                          const ProbeResults& results) {
  const Sha256Digest key = probe_cache_key(device, cpu_features);
  return cache.write(kFolder, to_hex(key) + ".bin", CacheEntryKind::DeviceProbe, key, encode_probe_results(results));
}

Status check_probe_results(const ProbeResults& results, const spirv::KernelInfo& kernel, std::string_view device_name) {
  if (kernel.uses_barriers && results.wrong(kProbeWorkgroupBarrier))
    return make_error(ErrorCode::Unsupported, "kernel '" + kernel.export_name +
                                                  "' uses workgroup barriers, which the device probe found wrong on '" +
                                                  std::string(device_name) + "' (property " +
                                                  std::string(kProbeWorkgroupBarrier) + "; see `wasmgpu selftest`)");
  return {};
}

}  // namespace wasmgpu::runtime
