#include "probe/device_probe.h"

#include <volk.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "probe/embedded_files.h"
#include "probe/probe_cases.h"
#include "runtime/device_compile_options.h"
#include "runtime/device_state.h"
#include "runtime/host_cpu.h"
#include "runtime/module.h"
#include "runtime/spirv_kernel.h"
#include "support/environment.h"

namespace wasmgpu::probe {
namespace {

using runtime::ProbeRaw;

constexpr std::string_view kAtomicAdd = "atomic_add";
constexpr std::string_view kSubgroupOps = "subgroup_ops";
constexpr std::string_view kBarrier = runtime::kProbeWorkgroupBarrier;

// Invocations of the concurrency checks: enough to contend on every device
// (a GPU runs thousands at once), cheap on lavapipe.
constexpr uint32_t kAtomicInvocations = 16384;
constexpr uint32_t kBarrierGroups = 16, kBarrierGroupSize = 128;
constexpr uint32_t kSubgroupInvocations = 1024, kSubgroupWords = 8;

std::vector<uint32_t> spirv_words(std::string_view name) {
  std::span<const uint8_t> bytes = probe_file(name);
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

struct Lowering {
  Handling handling = Handling::Native;
  const char* how = "";
};

// What wasmgpu's exact mode (the default) does for each property
// (docs/float-modes.md; src/spirv/function_lowering.cpp, float_exact.cpp,
// float_rounding.cpp).
Lowering lowering_of(std::string_view p, const spirv::CompileOptions& options) {
  auto ends = [&](std::string_view suffix) { return p.ends_with(suffix); };
  const bool is_float = p.starts_with("f");
  if (p == runtime::kProbeF64Subnormals)
    return options.f64_subnormals_native ? Lowering{Handling::Native, ""}
                                         : Lowering{Handling::Routed, "integer path (f64_subnormals_native off)"};
  if (p == "f32_subnormals") return {Handling::Routed, "f64 helper, operands widened on bits"};
  if (is_float && ends("_div")) return {Handling::Routed, "integer long division"};
  if (ends("_sqrt")) return {Handling::Routed, "integer square root"};
  if (ends("_trunc") || ends("_floor") || ends("_ceil") || ends("_nearest")) return {Handling::Routed, "from the bits"};
  if (ends("_shift")) return {Handling::Routed, "count masked to the width"};
  if (ends("_rem_s")) return {Handling::Routed, "x - (x / d) * d, d = -1 as 1"};
  return {Handling::Native, ""};
}

bool property_needs_f64(std::string_view p) { return p.starts_with("f64"); }

// Subgroup operations the probe runs, in compute shaders.
bool has_subgroup_ops(runtime::Device& device) {
  const runtime::DeviceInfo& info = device.info();
  if (!info.features.subgroup_vote || info.api_version < VK_API_VERSION_1_1) return false;
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceProperties2 properties{};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(device.state().physical_device, &properties);
  const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                        VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  return (subgroup.supportedOperations & needed) == needed &&
         (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) && subgroup.subgroupSize >= 2;
}

// Whether the device offers the float controls exact mode asks for at this
// width (SignedZeroInfNanPreserve, RoundingModeRTE): then the raw float
// shader runs under them, as wasmgpu would use the instruction.
bool has_exact_float_controls(runtime::Device& device, int width) {
  const runtime::DeviceFeatures& f = device.info().features;
  return width == 32 ? f.preserve_specials_f32 && f.rounding_rte_f32 : f.preserve_specials_f64 && f.rounding_rte_f64;
}

class Prober {
 public:
  Prober(runtime::Device& device, const ProbeOptions& options) : device_(device), options_(options) {
    for (const std::string& name : options.force) forced_.insert(name);
  }

  Result<ProbeReport> run();

 private:
  void progress(const std::string& text) {
    if (options_.progress) options_.progress(text);
  }
  Result<runtime::Buffer> buffer(uint64_t size) {
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer b, device_.create_buffer(size));
    WASMGPU_TRY(b.fill(0));
    return b;
  }
  Result<std::vector<uint64_t>> run_raw_scalar(Shader shader, const std::vector<size_t>& indices);
  Status run_raw_scalars();
  Status run_wasm_scalars(runtime::Module& module);
  Status run_concurrency_raw();
  Status run_concurrency_wasm(runtime::Module& module);
  // Raw verdict from per-case results, for a scalar property.
  void judge_raw(ProbeLine& line, const std::vector<size_t>& indices);
  ProbeLine& line(std::string_view property) { return lines_[line_index_.at(std::string(property))]; }

  // Checks of the concurrency results; empty when right, else what differed.
  static std::string check_atomics(uint32_t counter, const std::vector<uint32_t>& olds);
  static std::string check_barrier(const std::vector<uint32_t>& results);
  static std::string check_subgroups(const std::vector<uint32_t>& words);

  runtime::Device& device_;
  const ProbeOptions& options_;
  std::set<std::string, std::less<>> forced_;
  std::vector<ScalarCase> cases_ = scalar_cases();
  std::vector<uint64_t> raw_;  // per case
  std::vector<ProbeLine> lines_;
  std::map<std::string, size_t> line_index_;
  std::map<std::string, std::vector<size_t>> cases_of_;  // property -> case indices
  bool f64_ = false, subgroups_ = false;
  bool float_controls_32_ = false, float_controls_64_ = false;
};

std::string Prober::check_atomics(uint32_t counter, const std::vector<uint32_t>& olds) {
  if (counter != olds.size()) return std::to_string(olds.size()) + " adds of 1 left " + std::to_string(counter);
  std::vector<bool> seen(olds.size());
  for (uint32_t old : olds) {
    if (old >= olds.size() || seen[old]) return "old value " + std::to_string(old) + " returned twice or out of range";
    seen[old] = true;
  }
  return {};
}

std::string Prober::check_barrier(const std::vector<uint32_t>& results) {
  for (uint32_t i = 0; i < results.size(); ++i) {
    const uint32_t lid = i % kBarrierGroupSize, group = i / kBarrierGroupSize;
    uint32_t sum = 0;
    for (uint32_t round = 0; round < 4; ++round)
      sum += ((lid + 64 + round) % kBarrierGroupSize) * 7 + group * 1000 + round;
    if (results[i] != sum)
      return "invocation " + std::to_string(i) + " read " + std::to_string(results[i]) + ", expected " +
             std::to_string(sum);
  }
  return {};
}

std::string Prober::check_subgroups(const std::vector<uint32_t>& w) {
  static const char* const what[] = {"size",
                                     "lane",
                                     "add(1)",
                                     "inclusive_add(1)",
                                     "exclusive_add(lane)",
                                     "broadcast(lane + 100, 0)",
                                     "shuffle(lane * 3, lane ^ 1)",
                                     "ballot popcount"};
  for (size_t i = 0; i + kSubgroupWords <= w.size(); i += kSubgroupWords) {
    const uint32_t size = w[i], lane = w[i + 1];
    const uint32_t expected[kSubgroupWords] = {size, lane, size, lane + 1, lane * (lane - 1) / 2, 100, (lane ^ 1u) * 3,
                                               size};
    if (size < 2 || lane >= size)
      return "invocation " + std::to_string(i / kSubgroupWords) + ": lane " + std::to_string(lane) +
             " of a subgroup of " + std::to_string(size);
    for (uint32_t k = 2; k < kSubgroupWords; ++k)
      if (w[i + k] != expected[k])
        return std::string(what[k]) + " gave " + std::to_string(w[i + k]) + " at lane " + std::to_string(lane) +
               ", expected " + std::to_string(expected[k]);
  }
  return {};
}

Result<std::vector<uint64_t>> Prober::run_raw_scalar(Shader shader, const std::vector<size_t>& indices) {
  static const char* const names[] = {"raw_float32.spv", "raw_float64.spv", "raw_int32.spv", "raw_int64.spv"};
  static const char* const controlled[] = {"raw_float32.controls.spv", "raw_float64.controls.spv"};
  const bool controls =
      (shader == Shader::Float32 && float_controls_32_) || (shader == Shader::Float64 && float_controls_64_);
  const char* name = controls ? controlled[int(shader)] : names[int(shader)];
  progress(std::string("raw ") + name + ": " + std::to_string(indices.size()) + " cases");
  WASMGPU_ASSIGN_OR_RETURN(runtime::SpirvKernel kernel,
                           runtime::SpirvKernel::create(device_.state(), spirv_words(name)));
  struct Record {
    uint32_t op, unused;
    uint64_t a, b;
  };
  std::vector<Record> records;
  for (size_t i : indices) records.push_back({cases_[i].op, 0, cases_[i].a, cases_[i].b});
  const uint32_t n = uint32_t(records.size());
  WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer in, buffer(n * sizeof(Record)));
  WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer out, buffer(n * 8ull));
  WASMGPU_TRY(in.write(records.data(), records.size() * sizeof(Record)));
  runtime::SpirvLaunch launch;
  launch.groups = {(n + 63) / 64, 1, 1};
  const runtime::SpirvArg args[] = {runtime::SpirvArg::buffer(in), runtime::SpirvArg::buffer(out),
                                    runtime::SpirvArg::of(n)};
  WASMGPU_TRY(kernel.launch(launch, args));
  return out.read_as<uint64_t>(n);
}

// Wrong raw results a line lists (the count says how many there were).
constexpr size_t kShownCases = 3;

void Prober::judge_raw(ProbeLine& l, const std::vector<size_t>& indices) {
  const bool subnormal = is_subnormal_property(l.property);
  bool all_right = true, all_flushed = true;
  size_t wrong = 0;
  for (size_t i : indices) {
    const ScalarCase& c = cases_[i];
    if (matches(c, raw_[i])) continue;
    all_right = false;
    ++wrong;
    const uint64_t mask = result_mask(result_type(c));
    if ((raw_[i] & mask) != (c.flushed & mask)) all_flushed = false;
    if (wrong <= kShownCases)
      l.raw_detail += std::string(wrong == 1 ? "raw " : ", ") + c.text + " = " + value_text(result_type(c), raw_[i]) +
                      " (wasm: " + (c.expect_nan ? std::string("nan") : value_text(result_type(c), c.expected)) + ")";
  }
  if (!all_right)
    l.raw_detail += " (" + std::to_string(wrong) + " of " + std::to_string(indices.size()) + " cases wrong)";
  if (all_right)
    l.raw = subnormal ? "kept" : "right";
  else
    l.raw = subnormal && all_flushed ? "flushed" : "wrong";
}

Status Prober::run_raw_scalars() {
  std::map<Shader, std::vector<size_t>> by_shader;
  for (size_t i = 0; i < cases_.size(); ++i) {
    if (!f64_ && cases_[i].shader == Shader::Float64) continue;
    by_shader[cases_[i].shader].push_back(i);
  }
  for (auto& [shader, indices] : by_shader) {
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint64_t> results, run_raw_scalar(shader, indices));
    for (size_t k = 0; k < indices.size(); ++k) {
      const ScalarCase& c = cases_[indices[k]];
      // The test hook: the result a bad driver would have given.
      raw_[indices[k]] = forced_.count(c.property) ? forced_wrong_result(c) : results[k];
    }
  }
  for (auto& [property, indices] : cases_of_) {
    ProbeLine& l = line(property);
    if (l.raw == "absent") continue;
    judge_raw(l, indices);
  }
  return {};
}

Status Prober::run_wasm_scalars(runtime::Module& module) {
  const spirv::CompileOptions& options = module.compile_options();
  auto request = [&](size_t i) {
    const ScalarCase& c = cases_[i];
    runtime::CallRequest r{export_name(c), {}};
    const std::vector<wasm::ValType> types = param_types(c);
    r.args.push_back({types[0], c.a});
    if (types.size() > 1) r.args.push_back({types[1], c.b});
    return r;
  };
  auto judge = [&](ProbeLine& l, size_t i, const runtime::CallResult& result) {
    const ScalarCase& c = cases_[i];
    const bool right = !result.trapped && result.values.size() == 1 && matches(c, result.values[0].bits);
    if (right) return;
    l.correct = false;
    if (l.wasm_detail.empty())
      l.wasm_detail = "wasmgpu " + c.text + " = " +
                      (result.trapped ? std::string("trap") : value_text(result_type(c), result.values.at(0).bits));
  };
  std::vector<size_t> runnable;
  for (size_t i = 0; i < cases_.size(); ++i)
    if (line(cases_[i].property).handling != Handling::Absent) runnable.push_back(i);
  for (auto& [property, indices] : cases_of_) {
    ProbeLine& l = line(property);
    if (l.handling == Handling::Absent) continue;
    const Lowering lowering = lowering_of(property, options);
    l.handling = lowering.handling;
    l.how = lowering.how;
  }
  // All cases in one launch; when the runtime refuses that call shader
  // (a device without a feature some export needs), property by property.
  std::vector<runtime::CallRequest> all;
  for (size_t i : runnable) all.push_back(request(i));
  progress("wasm: " + std::to_string(all.size()) + " vectorised calls in one launch");
  Result<std::vector<runtime::CallResult>> results = module.call(all);
  if (results.ok()) {
    for (size_t k = 0; k < runnable.size(); ++k) judge(line(cases_[runnable[k]].property), runnable[k], (*results)[k]);
    return {};
  }
  progress("wasm: one launch failed (" + results.error().to_string() + "); property by property");
  for (auto& [property, indices] : cases_of_) {
    ProbeLine& l = line(property);
    if (l.handling == Handling::Absent) continue;
    std::vector<runtime::CallRequest> some;
    for (size_t i : indices) some.push_back(request(i));
    Result<std::vector<runtime::CallResult>> r = module.call(some);
    if (!r.ok()) {
      // Refused by the runtime: right when for a feature the device lacks
      // (f32 + - * in exact mode need shaderFloat64, exact mode needs float
      // controls: Unsupported, runtime/kernel.cpp), a failure otherwise.
      l.handling = Handling::Refused;
      l.how.clear();
      l.wasm_detail = r.error().to_string();
      l.correct = r.error().code == ErrorCode::Unsupported;
      continue;
    }
    for (size_t k = 0; k < indices.size(); ++k) judge(l, indices[k], (*r)[k]);
  }
  return {};
}

Status Prober::run_concurrency_raw() {
  {
    progress("raw atomics: " + std::to_string(kAtomicInvocations) + " invocations add 1 to one word");
    WASMGPU_ASSIGN_OR_RETURN(runtime::SpirvKernel kernel,
                             runtime::SpirvKernel::create(device_.state(), spirv_words("raw_atomics.spv")));
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer counter, buffer(4));
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer olds, buffer(kAtomicInvocations * 4ull));
    runtime::SpirvLaunch launch;
    launch.groups = {kAtomicInvocations / 64, 1, 1};
    const runtime::SpirvArg args[] = {runtime::SpirvArg::buffer(counter), runtime::SpirvArg::buffer(olds),
                                      runtime::SpirvArg::of(kAtomicInvocations)};
    WASMGPU_TRY(kernel.launch(launch, args));
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> total, counter.read_as<uint32_t>(1));
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> old_values, olds.read_as<uint32_t>(kAtomicInvocations));
    if (forced_.count(kAtomicAdd)) --total[0];  // a lost update
    ProbeLine& l = line(kAtomicAdd);
    l.raw_detail = check_atomics(total[0], old_values);
    l.raw = l.raw_detail.empty() ? "right" : "wrong";
    if (!l.raw_detail.empty()) l.raw_detail = "raw: " + l.raw_detail;
  }
  {
    progress("raw barrier: shared memory, barrier, read by another invocation");
    WASMGPU_ASSIGN_OR_RETURN(runtime::SpirvKernel kernel,
                             runtime::SpirvKernel::create(device_.state(), spirv_words("raw_barrier.spv")));
    const uint32_t n = kBarrierGroups * kBarrierGroupSize;
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer out, buffer(n * 4ull));
    runtime::SpirvLaunch launch;
    launch.groups = {kBarrierGroups, 1, 1};
    const runtime::SpirvArg args[] = {runtime::SpirvArg::buffer(out)};
    WASMGPU_TRY(kernel.launch(launch, args));
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> results, out.read_as<uint32_t>(n));
    if (forced_.count(kBarrier)) results[n / 2] += 1;  // a read before the write
    ProbeLine& l = line(kBarrier);
    l.raw_detail = check_barrier(results);
    l.raw = l.raw_detail.empty() ? "right" : "wrong";
    if (!l.raw_detail.empty()) l.raw_detail = "raw: " + l.raw_detail;
  }
  if (subgroups_) {
    progress("raw subgroups: add, scans, broadcast, shuffle, ballot");
    WASMGPU_ASSIGN_OR_RETURN(runtime::SpirvKernel kernel,
                             runtime::SpirvKernel::create(device_.state(), spirv_words("raw_subgroups.spv")));
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer out, buffer(kSubgroupInvocations * kSubgroupWords * 4ull));
    runtime::SpirvLaunch launch;
    launch.groups = {kSubgroupInvocations / 64, 1, 1};
    const runtime::SpirvArg args[] = {runtime::SpirvArg::buffer(out)};
    WASMGPU_TRY(kernel.launch(launch, args));
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> words, out.read_as<uint32_t>(kSubgroupInvocations * kSubgroupWords));
    if (forced_.count(kSubgroupOps)) words[2] += 1;  // a wrong subgroup sum
    ProbeLine& l = line(kSubgroupOps);
    l.raw_detail = check_subgroups(words);
    l.raw = l.raw_detail.empty() ? "right" : "wrong";
    if (!l.raw_detail.empty()) l.raw_detail = "raw: " + l.raw_detail;
  }
  return {};
}

Status Prober::run_concurrency_wasm(runtime::Module& module) {
  {
    ProbeLine& l = line(kAtomicAdd);
    progress("wasm atomics");
    WASMGPU_ASSIGN_OR_RETURN(runtime::Kernel * kernel, module.kernel("probe_atomic_add"));
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer counter, buffer(4));
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer olds, buffer(kAtomicInvocations * 4ull));
    WASMGPU_TRY(kernel->launch(kAtomicInvocations, 64, {counter, olds}));
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> total, counter.read_as<uint32_t>(1));
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> old_values, olds.read_as<uint32_t>(kAtomicInvocations));
    l.wasm_detail = check_atomics(total[0], old_values);
    l.correct = l.wasm_detail.empty();
  }
  {
    ProbeLine& l = line(kBarrier);
    progress("wasm barrier");
    Result<runtime::Kernel*> kernel = module.kernel("probe_barrier");
    if (!kernel.ok()) {
      // Refused where the cached probe found barriers wrong: right when for
      // that (Unsupported, naming the property).
      l.handling = Handling::Refused;
      l.wasm_detail = kernel.error().to_string();
      l.correct = kernel.error().code == ErrorCode::Unsupported &&
                  l.wasm_detail.find(std::string(kBarrier)) != std::string::npos;
    } else {
      const uint32_t n = kBarrierGroups * kBarrierGroupSize;
      WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer out, buffer(n * 4ull));
      WASMGPU_TRY((*kernel)->launch(n, kBarrierGroupSize, {out}));
      WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> results, out.read_as<uint32_t>(n));
      l.wasm_detail = check_barrier(results);
      l.correct = l.wasm_detail.empty();
    }
  }
  if (subgroups_) {
    ProbeLine& l = line(kSubgroupOps);
    progress("wasm subgroups");
    WASMGPU_ASSIGN_OR_RETURN(runtime::Kernel * kernel, module.kernel("probe_subgroups"));
    WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer out, buffer(kSubgroupInvocations * kSubgroupWords * 4ull));
    WASMGPU_TRY(kernel->launch(kSubgroupInvocations, 64, {out}));
    WASMGPU_ASSIGN_OR_RETURN(std::vector<uint32_t> words, out.read_as<uint32_t>(kSubgroupInvocations * kSubgroupWords));
    l.wasm_detail = check_subgroups(words);
    l.correct = l.wasm_detail.empty();
  }
  for (std::string_view p : {kAtomicAdd, kBarrier, kSubgroupOps}) {
    ProbeLine& l = line(p);
    if (!l.correct && !l.wasm_detail.empty() && l.handling != Handling::Refused)
      l.wasm_detail = "wasmgpu: " + l.wasm_detail;
  }
  return {};
}

Result<ProbeReport> Prober::run() {
  f64_ = device_.float64_enabled();
  subgroups_ = has_subgroup_ops(device_);
  float_controls_32_ = has_exact_float_controls(device_, 32);
  float_controls_64_ = has_exact_float_controls(device_, 64);
  raw_.assign(cases_.size(), 0);
  for (size_t i = 0; i < cases_.size(); ++i) cases_of_[cases_[i].property].push_back(i);
  for (const std::string& p : probe_properties()) {
    ProbeLine l;
    l.property = p;
    l.cases = cases_of_.count(p) ? cases_of_[p].size() : 1;
    l.forced = forced_.count(p) > 0;
    const bool absent = (property_needs_f64(p) && !f64_) || (p == kSubgroupOps && !subgroups_);
    if (absent) {
      l.raw = "absent";
      l.handling = Handling::Absent;
    }
    line_index_[p] = lines_.size();
    lines_.push_back(std::move(l));
  }

  WASMGPU_TRY(run_raw_scalars());
  WASMGPU_TRY(run_concurrency_raw());

  // Cache the raw results before the wasm side runs, so that the modules it
  // loads are compiled as every later process's will be.
  ProbeReport report;
  report.raw_float_controls = {float_controls_32_, float_controls_64_};
  for (const ProbeLine& l : lines_)
    report.results.properties.push_back({l.property,
                                         l.raw == "absent"                     ? ProbeRaw::Absent
                                         : l.raw == "right" || l.raw == "kept" ? ProbeRaw::Right
                                                                               : ProbeRaw::Wrong,
                                         l.forced});
  const std::shared_ptr<runtime::DiskCache>& cache = device_.state().disk_cache;
  if (!cache) {
    report.cache = "not cached: " + device_.cache_stats().disabled_reason;
  } else {
    const std::string& cpu = runtime::host_cpu_features();
    Status written = runtime::write_cached_probe(*cache, device_.info(), cpu, report.results);
    report.cache = written.ok() ? runtime::probe_cache_path(*cache, device_.info(), cpu).string()
                                : "not cached: " + written.error().to_string();
  }

  progress("wasm: loading the probe modules (exact float mode)");
  WASMGPU_ASSIGN_OR_RETURN(runtime::Module ops, runtime::Module::load(device_, probe_file("probe_ops.wasm")));
  WASMGPU_TRY(run_wasm_scalars(ops));
  WASMGPU_ASSIGN_OR_RETURN(runtime::Module kernels, runtime::Module::load(device_, probe_file("probe_kernels.wasm")));
  WASMGPU_TRY(run_concurrency_wasm(kernels));
  report.lines = std::move(lines_);
  return report;
}

}  // namespace

const char* to_string(Handling handling) {
  switch (handling) {
    case Handling::Native: return "native";
    case Handling::Routed: return "routed";
    case Handling::Refused: return "refused";
    case Handling::Absent: return "absent";
  }
  return "absent";
}

bool ProbeReport::all_correct() const {
  return std::all_of(lines.begin(), lines.end(), [](const ProbeLine& l) { return l.correct; });
}

std::vector<std::string> probe_properties() {
  std::vector<std::string> names;
  for (const ScalarCase& c : scalar_cases())
    if (std::find(names.begin(), names.end(), c.property) == names.end()) names.push_back(c.property);
  for (std::string_view p : {kAtomicAdd, kSubgroupOps, kBarrier}) names.emplace_back(p);
  return names;
}

Result<std::vector<std::string>> probe_force_from_environment() {
  std::vector<std::string> names = environment::probe_force();
  const std::vector<std::string> known = probe_properties();
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string all;
      for (const std::string& k : known) all += (all.empty() ? "" : ", ") + k;
      return make_error(ErrorCode::NotFound,
                        "WASMGPU_PROBE_FORCE: no property '" + name + "'; the properties are " + all);
    }
  }
  return names;
}

Result<ProbeReport> run_device_probe(runtime::Device& device, const ProbeOptions& options) {
  for (const std::string& name : options.force) {
    const std::vector<std::string> known = probe_properties();
    if (std::find(known.begin(), known.end(), name) == known.end())
      return make_error(ErrorCode::NotFound, "no probe property '" + name + "'");
  }
  Prober prober(device, options);
  return prober.run();
}

}  // namespace wasmgpu::probe
