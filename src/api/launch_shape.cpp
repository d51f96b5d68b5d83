// The launch shape of 1-D launches that give no workgroup size.
#include "api/launch_shape.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "frontend/call_graph.h"
#include "frontend/table.h"
#include "frontend/shared_memory.h"

namespace wasmgpu::detail {

namespace {

constexpr uint32_t kNvidia = 0x10DE, kAmd = 0x1002, kIntel = 0x8086;

std::string hex_vendor(uint32_t vendor) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", vendor);
  return text;
}

// The largest x size the device takes when y and z hold `other_dims`.
uint32_t size_limit(const device::DeviceDescription& device, uint32_t other_dims) {
  uint32_t limit = device.max_workgroup_invocations ? device.max_workgroup_invocations / std::max(other_dims, 1u)
                                                    : 128;  // Vulkan's minimum
  if (device.max_workgroup_size_x) limit = std::min(limit, device.max_workgroup_size_x);
  return std::max(limit, 1u);
}

// wasmgpu intrinsics that cannot see the workgroup size: the global id (for a
// 1-D launch, the invocation index), memory barriers without a workgroup
// scope, buffer atomics and images. Every other one (local and workgroup ids,
// sizes and counts, workgroup barriers, subgroups, and any added later)
// counts as seeing it.
bool size_blind(std::string_view name) {
  return name == "global_id" || name == "memory_barrier" || name.starts_with("atomic_") || name.starts_with("image_");
}

void add_part(Sha256& hash, std::string_view part) {
  const uint64_t size = part.size();
  hash.update(&size, sizeof size);
  hash.update(part);
}

}  // namespace

HeuristicSize heuristic_workgroup_size(const device::DeviceDescription& device, uint32_t other_dims) {
  const bool gpu = device.type == "discrete GPU" || device.type == "integrated GPU" || device.type == "virtual GPU";
  HeuristicSize out;
  if (gpu && (device.vendor_id == kNvidia || device.vendor_id == kAmd)) {
    // Measured on an NVIDIA H200: a triad at 256 ran at 2.4x its speed at 64
    // (issue 22), in wasm and GLSL alike.
    out.size = 256;
    out.reason = device.type + " of vendor " + hex_vendor(device.vendor_id) + " (" +
                 (device.vendor_id == kNvidia ? "NVIDIA" : "AMD") + ")";
  } else if (device.type == "discrete GPU") {
    out.size = 256;
    out.reason = "discrete GPU of vendor " + hex_vendor(device.vendor_id);
  } else if (gpu) {
    // Integrated and virtual GPUs (Intel's among them) have fewer lanes per
    // core to fill; not measured here.
    out.size = 128;
    out.reason =
        device.type + " of vendor " + hex_vendor(device.vendor_id) + (device.vendor_id == kIntel ? " (Intel)" : "");
  } else {
    // CPU devices (lavapipe) and unknown types keep the size every launch had
    // before the heuristic.
    out.size = 64;
    out.reason = (device.type.empty() ? std::string("device") : device.type) + " device";
  }
  if (device.subgroup_size > out.size) {
    out.size = device.subgroup_size;
    out.reason += ", one subgroup of " + std::to_string(device.subgroup_size);
  }
  const uint32_t limit = size_limit(device, other_dims);
  if (out.size > limit) {
    out.size = limit;
    out.reason += ", the device's limit of " + std::to_string(limit);
  }
  return out;
}

SizeDependence wasm_size_dependence(const wasm::Module& module, std::string_view export_name) {
  SizeDependence out;
  const wasm::Export* exported = module.find_export(export_name, wasm::ExternalKind::Func);
  if (!exported) {
    out.reason = "not an exported function";
    return out;
  }
  Result<frontend::SharedMemory> shared = frontend::find_shared_memory(module);
  if (!shared.ok()) {
    out.reason = "its shared memory cannot be read: " + shared.error().message;
    return out;
  }
  Result<frontend::IndirectCallTargets> targets = frontend::indirect_call_targets(module);
  Result<frontend::CallGraph> graph =
      frontend::build_call_graph(module, exported->index, targets.ok() ? &targets.value() : nullptr);
  if (!graph.ok()) {
    out.reason = "its call graph cannot be built: " + graph.error().message;
    return out;
  }
  std::vector<std::string> seen;
  for (uint32_t function : graph->functions) {
    if (function < module.imported_functions) continue;
    for (const wasm::Instr& instr : module.functions.at(function - module.imported_functions).body) {
      if (instr.op != wasm::Opcode::Call && instr.op != wasm::Opcode::ReturnCall) continue;
      const wasm::Import* import = module.imported_function(instr.imm0);
      if (!import || size_blind(import->name)) continue;
      if (import->name == "barrier") out.uses_barriers = true;
      const std::string name = import->module + "." + import->name;
      if (std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(name);
    }
  }
  if (!seen.empty()) {
    out.reason = "calls";
    for (size_t i = 0; i < seen.size(); ++i) out.reason += (i ? ", " : " ") + seen[i];
    return out;
  }
  if (shared->hi > shared->lo) {
    out.reason = "its module declares " + std::to_string(shared->hi - shared->lo) + " bytes of shared memory";
    return out;
  }
  out.depends = false;
  out.reason = "uses no local, workgroup or subgroup id, barrier or shared memory";
  return out;
}

std::vector<uint32_t> tuning_candidates(const device::DeviceDescription& device, uint32_t first) {
  std::vector<uint32_t> out{first};
  const uint32_t limit = size_limit(device, 1);
  for (uint32_t size = 64; size <= 1024 && size <= limit; size *= 2)
    if (size != first && size >= device.subgroup_size) out.push_back(size);
  return out;
}

uint32_t size_class(uint32_t n) { return n == 0 ? 0 : uint32_t(std::bit_width(n) - 1) / 2; }

std::vector<uint8_t> encode_tuned_size(uint32_t size) {
  const std::string text = "workgroup_size " + std::to_string(size) + "\n";
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::optional<uint32_t> decode_tuned_size(std::span<const uint8_t> payload) {
  const std::string text(payload.begin(), payload.end());
  constexpr std::string_view kPrefix = "workgroup_size ";
  if (!text.starts_with(kPrefix) || !text.ends_with("\n")) return std::nullopt;
  const std::string digits = text.substr(kPrefix.size(), text.size() - kPrefix.size() - 1);
  if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const uint32_t size = uint32_t(std::stoul(digits));
  if (size == 0) return std::nullopt;
  return size;
}

LaunchTuner::LaunchTuner(device::DeviceBackend& backend)
    : clock([] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch());
      }),
      backend_(backend) {}

Sha256Digest LaunchTuner::key(const Sha256Digest& module_identity, std::string_view kernel, uint32_t size_class) const {
  // Bump when the payload or the candidates change meaning.
  constexpr std::string_view kFormat = "wasmgpu launch shape 1";
  const device::DeviceDescription& d = backend_.description();
  Sha256 hash;
  add_part(hash, kFormat);
  hash.update(module_identity);
  add_part(hash, kernel);
  add_part(hash, d.name);
  add_part(hash, std::to_string(d.vendor_id) + ":" + std::to_string(d.device_id));
  add_part(hash, d.driver);
  add_part(hash, d.api_version);
  add_part(hash, std::to_string(size_class));
  return hash.finish();
}

LaunchTuner::Pick LaunchTuner::pick(const Sha256Digest& key, std::span<const uint32_t> candidates) {
  State& state = states_[key];
  if (!state.disk_checked) {
    state.disk_checked = true;
    if (std::optional<std::vector<uint8_t>> payload = backend_.read_cached(kLaunchShapeCacheFolder, key))
      state.winner = decode_tuned_size(*payload);
  }
  if (state.winner && std::find(candidates.begin(), candidates.end(), *state.winner) != candidates.end())
    return {*state.winner, false};
  if (state.candidates.empty() ||
      !std::equal(state.candidates.begin(), state.candidates.end(), candidates.begin(), candidates.end())) {
    state.candidates.assign(candidates.begin(), candidates.end());
    state.ns_per_invocation.assign(candidates.size(), std::nullopt);
    state.winner.reset();
  }
  for (size_t i = 0; i < state.candidates.size(); ++i)
    if (!state.ns_per_invocation[i]) return {state.candidates[i], true};
  return {state.candidates.front(), false};  // unreachable: a full set has a winner
}

void LaunchTuner::report(const Sha256Digest& key, uint32_t size, uint32_t n, std::chrono::nanoseconds elapsed) {
  auto it = states_.find(key);
  if (it == states_.end() || it->second.winner || n == 0) return;
  State& state = it->second;
  for (size_t i = 0; i < state.candidates.size(); ++i)
    if (state.candidates[i] == size && !state.ns_per_invocation[i])
      state.ns_per_invocation[i] = double(elapsed.count()) / n;
  if (std::any_of(state.ns_per_invocation.begin(), state.ns_per_invocation.end(),
                  [](const std::optional<double>& t) { return !t; }))
    return;
  // The fastest per invocation; ties go to the earlier candidate (the heuristic's first).
  size_t best = 0;
  for (size_t i = 1; i < state.candidates.size(); ++i)
    if (*state.ns_per_invocation[i] < *state.ns_per_invocation[best]) best = i;
  state.winner = state.candidates[best];
  backend_.write_cached(kLaunchShapeCacheFolder, key, encode_tuned_size(*state.winner));
}

}  // namespace wasmgpu::detail
