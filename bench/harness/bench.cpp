#include "harness/bench.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "harness/cuda_runner.h"
#include "harness/embedded.h"
#include "harness/gpu.h"
#include "harness/report.h"
#include "harness/trace.h"
#include "harness/wasm_kernel.h"
#include "harness/workload.h"
#include "harness/workloads/workloads.h"
#include "runtime/device_state.h"
#include "spirv/compiler.h"
#include "wasm/decoder.h"

namespace wasmgpu::bench {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

bool wanted(const Options& options, const std::string& name) {
  return options.only.empty() || std::find(options.only.begin(), options.only.end(), name) != options.only.end();
}

void log(const Options& options, const std::string& line) {
  (void)options;  // progress goes to stderr in both formats
  std::fprintf(stderr, "%s\n", line.c_str());
}

// `iters` runs of `record`, each after a barrier on the one before.
Recorder repeated(Gpu& gpu, const Recorder& record, uint64_t iters) {
  return [&gpu, record, iters](VkCommandBuffer cmd) {
    for (uint64_t i = 0; i < iters; ++i) {
      if (i) gpu.barrier(cmd);
      record(cmd);
    }
  };
}

// ------------------------------------------------------------ copy bandwidth

double copy_bandwidth(Gpu& gpu, const Options& options) {
  uint64_t bytes = options.quick ? (8ull << 20) : (64ull << 20);
  const uint64_t cap = std::min<uint64_t>(memory_budget(gpu) / 2, 1ull << 30);
  uint64_t iters = 1;
  for (;;) {
    runtime::Buffer src = make_buffer(gpu, bytes), dst = make_buffer(gpu, bytes);
    fill(gpu, src, 0x3f800000u);
    VkBufferCopy region{0, 0, bytes};
    Recorder copy = [&](VkCommandBuffer cmd) {
      gpu.vk().vkCmdCopyBuffer(cmd, src.handle(), dst.handle(), 1, &region);
    };
    gpu.run(copy);  // warm-up
    double ms = gpu.time_ms(copy);
    if (!options.quick && ms < options.min_ms && bytes < cap) {
      bytes = std::min(cap, bytes * 4);
      continue;
    }
    if (!options.quick) iters = std::max<uint64_t>(1, uint64_t(std::ceil(options.min_ms / std::max(ms, 1e-3))));
    std::vector<double> samples;
    for (int r = 0; r < (options.quick ? 1 : options.runs); ++r)
      samples.push_back(gpu.time_ms(repeated(gpu, copy, iters)) / double(iters));
    std::vector<uint32_t> check(1024);
    download(dst, check.data(), check.size() * 4);
    for (uint32_t word : check)
      if (word != 0x3f800000u) throw std::runtime_error("vkCmdCopyBuffer did not copy the buffer");
    const double ms_per = median(samples);
    log(options, fmt::format("copy: vkCmdCopyBuffer of {} MiB x {}: {:.3f} ms", bytes >> 20, iters, ms_per));
    return 2.0 * double(bytes) / (ms_per * 1e6);
  }
}

// ------------------------------------------------------------ workloads

Row measure(Gpu& gpu, Workload& w, const Options& options, const CudaRunner* cuda) {
  TracePhase total(w.name(), "total");
  const uint64_t cap = w.round_size(w.max_size(gpu));
  uint64_t size = std::min(cap, w.round_size(options.quick ? w.quick_size() : w.start_size()));
  // Buffers and inputs grow by at least half each time they are made anew,
  // so the calibration's steps cost a bounded multiple of the last one.
  uint64_t capacity = 0;
  auto setup = [&] {
    if (size > capacity) capacity = std::min(cap, std::max(size, w.round_size(capacity * 3 / 2)));
    TracePhase phase(w.name(), fmt::format("setup size {}", size));
    w.setup(gpu, size, capacity);
  };
  setup();
  auto record = [&](Variant v) -> Recorder { return [&w, v](VkCommandBuffer cmd) { w.record(cmd, v); }; };
  uint64_t iters = 1;
  if (!options.quick) {
    // Calibration with the GLSL twin: grow the problem until one run takes
    // min_ms or the memory cap is reached, then repeat runs to reach min_ms.
    // A run after a warm-up run; when it is shorter than a sustained batch,
    // about 100 ms of runs back to back (untimed: the GPU's clocks rise under
    // load), then a timed batch of about min_ms. A lone run right after the
    // host's setup can read several times too slow (the H200 timed SGEMM's
    // twin at 13 ms for n=3200, 4 ms of work at n=3968 once under load), and
    // stopped the growth early.
    auto calibrate = [&] {
      TracePhase phase(w.name(), fmt::format("calibration at size {}", size));
      const Recorder glsl = record(Variant::Glsl);
      gpu.run(glsl);
      double ms = gpu.time_ms(glsl);
      const double sustained = std::max(options.min_ms, 100.0);
      if (ms < sustained) {
        auto runs_for = [&](double target) {
          return std::clamp<uint64_t>(uint64_t(std::ceil(target / std::max(ms, 1e-3))), 1, 1024);
        };
        gpu.run(repeated(gpu, glsl, runs_for(sustained)));
        const uint64_t k = runs_for(options.min_ms);
        ms = std::min(ms, gpu.time_ms(repeated(gpu, glsl, k)) / double(k));
      }
      if (trace_enabled()) std::fprintf(stderr, "trace: %s: size %llu: %.3f ms per run\n", w.name(),
                                        (unsigned long long)size, ms);
      return ms;
    };
    double ms = calibrate();
    while (ms < options.min_ms && size < cap) {
      const double factor = std::pow(1.25 * options.min_ms / std::max(ms, 1e-3), 1.0 / w.size_exponent());
      const uint64_t next = std::min(cap, w.round_size(uint64_t(double(size) * std::max(factor, 1.2))));
      if (next <= size) break;
      size = next;
      setup();
      ms = calibrate();
    }
    iters = std::max<uint64_t>(1, uint64_t(std::ceil(options.min_ms / std::max(ms, 1e-3))));
  }
  std::vector<Variant> variants;
  for (Variant v : kVariants) {
    if (std::string why = w.skip_reason(gpu, v); !why.empty())
      log(options, fmt::format("{}: {} skipped: {}", w.name(), to_string(v), why));
    else
      variants.push_back(v);
  }
  // Every variant is verified before anything is timed.
  for (Variant v : variants) {
    {
      TracePhase phase(w.name(), fmt::format("{} checked run", to_string(v)));
      w.reset(gpu);
      gpu.run(record(v));
    }
    TracePhase phase(w.name(), fmt::format("{} check", to_string(v)));
    w.check(gpu, v);
  }
  log(options, fmt::format("{}: {} verified ({} variants), {} run(s) per sample", w.name(), w.size_text(),
                           variants.size(), iters));
  std::map<Variant, std::vector<double>> samples;
  const int runs = options.quick ? 1 : options.runs;
  {
    TracePhase phase(w.name(), fmt::format("timed runs ({} x {} variants x {} iterations)", runs, variants.size(),
                                           iters));
    for (int r = 0; r < runs; ++r)
      for (Variant v : variants) samples[v].push_back(gpu.time_ms(repeated(gpu, record(v), iters)) / double(iters));
  }

  Row row;
  row.workload = w.name();
  row.size = w.size_text();
  row.unit = w.unit() == Unit::Bytes ? "GB/s" : "GFLOP/s";
  row.memory_bound = w.memory_bound();
  const double work = w.work();
  for (Variant v : variants) {
    const double ms = median(samples[v]);
    row.ms[v] = ms;
    row.value[v] = work / (ms * 1e6);
  }
  if (cuda) {
    TracePhase phase(w.name(), "CUDA twin");
    CudaResult r = cuda->run(w.name(), w.cuda_args(), iters, runs);
    row.cuda = work / (r.ms * 1e6);
    row.cuda_nofma = work / (r.ms_nofma * 1e6);
    if (r.ms_library > 0) row.cuda_library = work / (r.ms_library * 1e6);
  }
  return row;
}

// ------------------------------------------------------------ launch overhead

Row launch_overhead(Gpu& gpu, const Options& options, const CudaRunner* cuda) {
  const unsigned launches = options.quick ? std::min(options.launches, 1000u) : options.launches;
  runtime::Buffer counter = make_buffer(gpu, 16);
  WasmKernel wasm(gpu, embedded("bump.wasm"), "bump", spirv::FloatMode::Fast);
  WasmLaunch launch = wasm.prepare({1, 1, 1}, {64, 1, 1}, {counter});
  VkPipeline raw = gpu.twin_pipeline(embedded("bump.plain.spv"), "bump.plain.spv");
  const uint64_t address = counter.device_address();
  Recorder wasm_launch = [&](VkCommandBuffer cmd) { launch.record(cmd); };
  Recorder raw_launch = [&](VkCommandBuffer cmd) { gpu.dispatch_twin(cmd, raw, &address, 8, 1); };
  std::vector<double> wasm_us, raw_us;
  auto one = [&](const Recorder& record, std::vector<double>& out, const char* what) {
    fill(gpu, counter, 0);
    out.push_back(gpu.time_ms(repeated(gpu, record, launches)) * 1000.0 / launches);
    uint32_t value = 0;
    download(counter, &value, 4);
    if (value != launches)
      throw std::runtime_error(fmt::format("launch overhead ({}): the counter reads {} after {} launches", what, value,
                                           launches));
  };
  one(wasm_launch, wasm_us, "wasm");  // warm-up: pipeline compile
  one(raw_launch, raw_us, "raw Vulkan");
  wasm_us.clear(), raw_us.clear();
  for (int r = 0; r < (options.quick ? 1 : options.runs); ++r) {
    one(raw_launch, raw_us, "raw Vulkan");
    one(wasm_launch, wasm_us, "wasm");
  }
  Row row;
  row.workload = "launch";
  row.size = fmt::format("{} launches", launches);
  row.unit = "us/launch";
  row.lower_is_better = true;
  row.value[Variant::Glsl] = median(raw_us);
  row.value[Variant::WasmFast] = median(wasm_us);
  log(options, fmt::format("launch: {} dependent launches, verified", launches));
  if (cuda) row.cuda = cuda->run("launch", fmt::format("--size {}", launches), 1, options.quick ? 1 : options.runs).ms *
                       1000.0 / launches;
  return row;
}

// ------------------------------------------------------------ compile time

// spirv::compile_kernel of the decoded big.wasm with validation off: the
// median of 3 compiles in this process (the first compile of a process is
// slower: its memory is fresh). spirv-val, which CompileOptions::validate
// runs by default after every compile (the runtime's only on a compile-cache
// miss), is run once per mode and timed apart: its time is logged, not put
// in the row.
Row compile_time(const Options& options) {
  std::span<const uint8_t> bytes = embedded("big.wasm");
  auto module = wasm::decode_and_validate(bytes);
  if (!module) throw std::runtime_error("big.wasm: " + module.error().to_string());
  auto seconds_since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  Row row;
  row.workload = "compile";
  row.unit = "MB/s";
  std::string validation;
  for (Variant v : {Variant::WasmFast, Variant::WasmExact}) {
    spirv::CompileOptions compile_options;
    compile_options.validate = false;
    compile_options.float_mode = v == Variant::WasmFast ? spirv::FloatMode::Fast : spirv::FloatMode::Exact;
    std::vector<double> seconds;
    size_t words = 0;
    for (int r = 0; r < (options.quick ? 1 : 3); ++r) {
      auto start = std::chrono::steady_clock::now();
      auto compiled = spirv::compile_kernel(*module, "big", compile_options);
      seconds.push_back(seconds_since(start));
      if (!compiled) throw std::runtime_error("compiling big.wasm: " + compiled.error().to_string());
      words = compiled->words.size();
      if (r == 0) {
        auto validation_start = std::chrono::steady_clock::now();
        if (Status s = spirv::validate(compiled->words); !s)
          throw std::runtime_error("big.wasm's SPIR-V is invalid: " + s.error().to_string());
        double validate_seconds = seconds_since(validation_start);
        validation += fmt::format("{}{}: {:.2f} s (compile + spirv-val {:.3f} MB/s)", validation.empty() ? "" : ", ",
                                  v == Variant::WasmFast ? "fast" : "exact", validate_seconds,
                                  double(bytes.size()) / ((seconds[0] + validate_seconds) * 1e6));
      }
    }
    row.value[v] = double(bytes.size()) / (median(seconds) * 1e6);
    row.size = fmt::format("{} KB wasm -> {} KB SPIR-V", bytes.size() / 1000, words * 4 / 1000);
  }
  log(options, fmt::format("compile: big.wasm ({} bytes), SPIR-V validated once per mode, not timed in the row; "
                           "spirv-val {}",
                           bytes.size(), validation));
  return row;
}

}  // namespace

void run(const Options& options) {
  set_trace(options.verbose);
  TracePhase total("bench", "total");
  std::optional<TracePhase> open_phase(std::in_place, "bench", "open the device");
  Gpu gpu(options.device);
  open_phase.reset();
  if (trace_enabled()) {
    const VkPhysicalDeviceMemoryProperties& m = gpu.device().state().memory_properties;
    for (uint32_t i = 0; i < m.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags f = m.memoryTypes[i].propertyFlags;
      std::fprintf(stderr, "trace: memory type %u: heap %u (%llu MiB)%s%s%s%s\n", i, m.memoryTypes[i].heapIndex,
                   (unsigned long long)(m.memoryHeaps[m.memoryTypes[i].heapIndex].size >> 20),
                   f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? " device-local" : "",
                   f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT ? " host-visible" : "",
                   f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT ? " host-coherent" : "",
                   f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT ? " host-cached" : "");
    }
    runtime::Buffer probe = make_buffer(gpu, 1 << 20);
    std::fprintf(stderr, "trace: device buffers are %s\n",
                 probe.host_mapped() ? "host-mapped (read and written with memcpy)" : "copied through staging");
  }
  const runtime::DeviceInfo& info = gpu.device().info();
  Report report;
  report.device = fmt::format("{} ({})", info.name, info.driver_info.empty() ? info.driver_name : info.driver_info);
  std::unique_ptr<CudaRunner> cuda;
  if (options.cuda) cuda = std::make_unique<CudaRunner>(*options.cuda);
  log(options, "device: " + report.device);

  {
    TracePhase phase("copy", "total");
    report.copy_gbs = copy_bandwidth(gpu, options);  // always: the memory-bound rows compare with it
  }
  std::optional<TracePhase> load_phase(std::in_place, "bench", "load the workloads' kernels and twins");
  auto workloads = make_workloads(gpu, options.only);
  load_phase.reset();
  for (auto& w : workloads) {
    report.rows.push_back(measure(gpu, *w, options, cuda.get()));
    w.reset();  // frees its buffers: the next workload may need the whole wasm address space
  }
  if (wanted(options, "launch")) {
    TracePhase phase("launch", "total");
    report.rows.push_back(launch_overhead(gpu, options, cuda.get()));
  }
  if (wanted(options, "compile")) {
    TracePhase phase("compile", "total");
    report.rows.push_back(compile_time(options));
  }
  if (!gpu.device().validation_messages().empty())
    throw std::runtime_error(fmt::format("the Vulkan validation layer reported {} message(s)",
                                         gpu.device().validation_messages().size()));
  print(report, options.tsv);
}

}  // namespace wasmgpu::bench
