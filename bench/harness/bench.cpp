#include "harness/bench.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include "harness/cuda_runner.h"
#include "harness/embedded.h"
#include "harness/gpu.h"
#include "harness/native.h"
#include "harness/raw_vulkan.h"
#include "harness/report.h"
#include "harness/trace.h"
#include "harness/wasm_kernel.h"
#include "harness/workload.h"
#include "harness/workloads/workloads.h"
#include "spirv/compiler.h"
#include "wasm/decoder.h"

#if WASMGPU_BENCH_NATIVE
#include "native_twins.h"
#endif

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

// The CPU columns (cpu, native, lavapipe) unless --no-cpu, and only where a
// workload row is run (not for --only launch, sync, compile).
bool wanted_cpu_columns(const Options& options) {
  if (!options.cpu_columns) return false;
  if (options.only.empty()) return true;
  for (const std::string& name : options.only)
    if (name != "copy" && name != "launch" && name != "sync" && name != "compile") return true;
  return false;
}

void log(const Options& options, const std::string& line) {
  (void)options;  // progress goes to stderr in both formats
  std::fprintf(stderr, "%s\n", line.c_str());
}

// `iters` runs of `record`, each after a barrier on the one before.
Recorder repeated(const Recorder& record, uint64_t iters) {
  return [record, iters](CommandBuffer& commands) {
    for (uint64_t i = 0; i < iters; ++i) {
      if (i) commands.barrier();
      record(commands);
    }
  };
}

// ------------------------------------------------------------ copy bandwidth

double copy_bandwidth(Gpu& gpu, const Options& options) {
  uint64_t bytes = options.quick ? (8ull << 20) : (64ull << 20);
  const uint64_t cap = std::min<uint64_t>(memory_budget(gpu) / 2, 1ull << 30);
  uint64_t iters = 1;
  for (;;) {
    BufferBase src = make_buffer(gpu, bytes), dst = make_buffer(gpu, bytes);
    fill(gpu, src, 0x3f800000u);
    Recorder copy = [&](CommandBuffer& commands) { commands.copy(src, dst); };
    gpu.run(copy);  // warm-up
    double ms = gpu.time_ms(copy);
    if (!options.quick && ms < options.min_ms && bytes < cap) {
      bytes = std::min(cap, bytes * 4);
      continue;
    }
    if (!options.quick) iters = std::max<uint64_t>(1, uint64_t(std::ceil(options.min_ms / std::max(ms, 1e-3))));
    std::vector<double> samples;
    for (int r = 0; r < (options.quick ? 1 : options.runs); ++r)
      samples.push_back(gpu.time_ms(repeated(copy, iters)) / double(iters));
    std::vector<uint32_t> check(1024);
    download(dst, check.data(), check.size() * 4);
    for (uint32_t word : check)
      if (word != 0x3f800000u) throw std::runtime_error("CommandBuffer::copy did not copy the buffer");
    const double ms_per = median(samples);
    log(options, fmt::format("copy: CommandBuffer::copy (vkCmdCopyBuffer) of {} MiB x {}: {:.3f} ms", bytes >> 20,
                             iters, ms_per));
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
  auto record = [&](Variant v) -> Recorder { return [&w, v](CommandBuffer& commands) { w.record(commands, v); }; };
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
        gpu.run(repeated(glsl, runs_for(sustained)));
        const uint64_t k = runs_for(options.min_ms);
        ms = std::min(ms, gpu.time_ms(repeated(glsl, k)) / double(k));
      }
      if (trace_enabled())
        std::fprintf(stderr, "trace: %s: size %llu: %.3f ms per run\n", w.name(), (unsigned long long)size, ms);
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
    std::string why = w.skip_reason(gpu, v);
    if (why.empty() && v == Variant::WasmDefault && !w.kernels().has_default()) why = w.no_default_reason();
    if (!why.empty())
      log(options, fmt::format("{}: {} skipped: {}", w.name(), to_string(v), why));
    else
      variants.push_back(v);
  }
  // The default launch: the size kernel(n, ...) gets at this size, after
  // the calls that let the autotuner time its candidates (not measured).
  if (std::find(variants.begin(), variants.end(), Variant::WasmDefault) != variants.end()) {
    TracePhase phase(w.name(), "default launch shape");
    const LaunchChoice choice = w.kernels().settle_default();
    log(options, fmt::format("{}: default launch: workgroups of {} ({}, {})", w.name(), choice.workgroup_size[0],
                             to_string(choice.source), choice.reason));
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
    TracePhase phase(w.name(),
                     fmt::format("timed runs ({} x {} variants x {} iterations)", runs, variants.size(), iters));
    for (int r = 0; r < runs; ++r)
      for (Variant v : variants) samples[v].push_back(gpu.time_ms(repeated(record(v), iters)) / double(iters));
  }

  Row row;
  row.problem_size = size;
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

// ------------------------------------------------------------ CPU columns

// The rows with a native twin (bench/native).
const char* const kNativeTwinRows[] = {"triad",      "reduce",    "mandelbrot", "sgemm",
                                       "horner_f64", "histogram", "particles",  "stencil"};

// The CPU columns' launch: kernel(n, ...) with no workgroup size where the
// workload has one (the `default` column's launch), else the workload's own
// grid, which a user gives; exact mode (the default float mode) either way.
Variant user_variant(Workload& w) { return w.kernels().has_default() ? Variant::WasmDefault : Variant::WasmExact; }
// The cpu and lavapipe columns' variant: the user's, or fast mode with the
// workload's own grid under --cpu-fast.
Variant cpu_variant(Workload& w, const Options& options) {
  return options.cpu_fast ? Variant::WasmFast : user_variant(w);
}

// Milliseconds per call of `run` on the host's clock: a warm-up call, then
// the median of `runs` samples of back-to-back calls lasting min_ms each.
double host_ms(const std::function<void()>& run, const Options& options) {
  auto timed = [&](uint64_t calls) {
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < calls; ++i) run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / double(calls);
  };
  const double first = timed(1);
  if (options.quick) return first;
  const uint64_t calls = std::max<uint64_t>(1, uint64_t(std::ceil(options.min_ms / std::max(timed(1), 1e-3))));
  std::vector<double> samples;
  for (int r = 0; r < options.runs; ++r) samples.push_back(timed(calls));
  return median(samples);
}

// The user's launch of `w` on `gpu` (the cpu device or lavapipe) at `size`,
// or the largest size under it that the device allows: set up, verified
// against the CPU reference, then timed as the other variants are. Returns
// the throughput in the row's unit, or NAN where the workload skips it.
double measure_user(Gpu& gpu, Workload& w, uint64_t size, const Options& options, const char* column) {
  TracePhase total(w.name(), fmt::format("{} column", column));
  size = w.round_size(std::min(size, w.max_size(gpu)));
  w.setup(gpu, size, size);
  const Variant v = cpu_variant(w, options);
  if (std::string why = w.skip_reason(gpu, v); !why.empty()) {
    log(options, fmt::format("{}: {} skipped: {}", w.name(), column, why));
    return NAN;
  }
  if (v == Variant::WasmDefault) w.kernels().settle_default();
  const Recorder record = [&w, v](CommandBuffer& commands) { w.record(commands, v); };
  w.reset(gpu);
  const double checked_ms = gpu.time_ms(record);
  w.check(gpu, v);
  // A run of over a second (the cpu device runs barrier kernels' workgroups
  // as fibers, at about 1 us per barrier per invocation) is timed once more,
  // alone, so that the column finishes in minutes.
  const bool slow = checked_ms > 1000.0;
  uint64_t iters = 1;
  if (!options.quick && !slow)
    iters = std::max<uint64_t>(1, uint64_t(std::ceil(options.min_ms / std::max(gpu.time_ms(record), 1e-3))));
  // --quick reports the checked run's time (its timings mean nothing).
  std::vector<double> samples;
  if (options.quick) samples.push_back(checked_ms);
  for (int r = 0; r < (options.quick ? 0 : slow ? 1 : options.runs); ++r)
    samples.push_back(gpu.time_ms(repeated(record, iters)) / double(iters));
  const double ms = median(samples);
  log(options,
      fmt::format("{}: {}: {} ({}) verified, {:.3f} ms per run ({} per sample)", w.name(), column, w.size_text(),
                  v == Variant::WasmDefault ? "kernel(n, ...)"
                  : v == Variant::WasmFast  ? "its own grid, fast mode"
                                            : "its own grid, exact mode",
                  ms, iters));
  return w.work() / (ms * 1e6);
}

// The native twin of `w` at its current size: its output is checked against
// a run of `v` (an exact-mode launch) of the wasm kernel on `gpu`, then it is
// timed on the host's clock; likewise its library reference, checked against
// the twin. Fills row.native (and row.library*).
void measure_native(Gpu& gpu, Workload& w, Variant v, const Options& options, Row& row) {
  std::unique_ptr<NativeTwin> twin = w.native_twin();
  if (!twin) return;
  TracePhase total(w.name(), "native twin");
  w.reset(gpu);
  gpu.run([&w, v](CommandBuffer& commands) { w.record(commands, v); });
  twin->run();
  twin->check(gpu, v);
  const double work = w.work();
  const double ms = host_ms(twin->run, options);
  row.native = work / (ms * 1e6);
  log(options, fmt::format("{}: native twin checked against the wasm kernel ({} on {}), {:.3f} ms per run", w.name(),
                           to_string(v), gpu.info().name, ms));
  row.library = twin->library;
  if (twin->library_run) {
    twin->library_run();
    twin->library_check();
    const double library_ms = host_ms(twin->library_run, options);
    row.library_value = work / (library_ms * 1e6);
    log(options,
        fmt::format("{}: {} checked against the native twin, {:.3f} ms per run", w.name(), twin->library, library_ms));
  }
  // OpenMP's and OpenBLAS's threads spin a while after their last parallel
  // region (libomp's KMP_BLOCKTIME, 200 ms): let them sleep before the next
  // measurement shares the cores with them.
  if (!options.quick) std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

// STREAM-style copy and triad over every core (bench/native/stream.c), on
// arrays far larger than the caches, each result checked.
void stream_bandwidth(Report& report, const Options& options) {
#if WASMGPU_BENCH_NATIVE
  TracePhase phase("stream", "total");
  const uint64_t n = options.quick ? (1u << 20) : (1u << 25);  // 128 MiB per array
  std::vector<float> a(n, 0.0f), b = generated<float>(n, [](uint64_t i) { return float(i % 1000) * 0.5f; });
  std::vector<float> c = generated<float>(n, [](uint64_t i) { return float(i % 7); });
  const float s = 3.0f;
  const double copy_ms = host_ms([&] { native_stream_copy(a.data(), b.data(), n); }, options);
  if (std::memcmp(a.data(), b.data(), n * 4) != 0) throw std::runtime_error("stream copy: the copy differs");
  const double triad_ms = host_ms([&] { native_stream_triad(a.data(), b.data(), c.data(), s, n); }, options);
  parallel_for(n, 1 << 20, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      const float product = s * c[i];
      const float expected = b[i] + product;
      if (std::memcmp(&a[i], &expected, 4) != 0)
        mismatch("stream-triad", Variant::WasmExact, fmt::format("a[{}]", i), a[i], expected);
    }
  });
  report.stream_copy_gbs = 8.0 * double(n) / (copy_ms * 1e6);
  report.stream_triad_gbs = 12.0 * double(n) / (triad_ms * 1e6);
  report.stream_size = fmt::format("n={} x 4 B", n);
  log(options, fmt::format("stream: n={}, copy {:.3f} ms, triad {:.3f} ms, verified", n, copy_ms, triad_ms));
#else
  (void)report, (void)options;
#endif
}

// ------------------------------------------------------------ launch overhead

Row launch_overhead(Gpu& gpu, const Options& options, const CudaRunner* cuda) {
  const unsigned launches = options.quick ? std::min(options.launches, 1000u) : options.launches;
  BufferBase counter = make_buffer(gpu, 16);
  WasmKernel wasm(gpu, embedded("bump.wasm"), "bump", ModuleOptions::FloatMode::Fast);
  WasmLaunch launch = wasm.prepare({1, 1, 1}, {64, 1, 1}, {counter});
  const uint64_t address = counter.device_address();
  TwinLaunch raw = Gpu::twin_launch(gpu.twin(embedded("bump.plain.spv")), &address, 8, {1, 1, 1});
  Recorder wasm_launch = [&](CommandBuffer& commands) { launch.record(commands); };
  Recorder raw_launch = [&](CommandBuffer& commands) { raw.record(commands); };
  std::vector<double> wasm_us, raw_us;
  auto one = [&](const Recorder& record, std::vector<double>& out, const char* what) {
    fill(gpu, counter, 0);
    out.push_back(gpu.time_ms(repeated(record, launches)) * 1000.0 / launches);
    uint32_t value = 0;
    download(counter, &value, 4);
    if (value != launches)
      throw std::runtime_error(
          fmt::format("launch overhead ({}): the counter reads {} after {} launches", what, value, launches));
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
  if (cuda)
    row.cuda = cuda->run("launch", fmt::format("--size {}", launches), 1, options.quick ? 1 : options.runs).ms *
               1000.0 / launches;
  return row;
}

// ------------------------------------------------------------ synchronous call

// The user's synchronous call end to end, on the host's clock: bump(1,
// counter), which checks its arguments, records a command buffer, submits it
// and waits (and reads the trap record), against a raw Vulkan submit-and-wait
// of the same dispatch (the bump twin on a device of its own: record,
// submit, wait for the fence) and, with --cuda, cudaLaunchKernel +
// cudaDeviceSynchronize. Medians of `runs` samples of `calls` calls each.
Row sync_call(Gpu& gpu, const Options& options, const CudaRunner* cuda) {
  const unsigned calls = options.quick ? 20 : 2000;
  const int runs = options.quick ? 1 : options.runs;
  BufferBase counter = make_buffer(gpu, 16);
  WasmKernel wasm(gpu, embedded("bump.wasm"), "bump", ModuleOptions::FloatMode::Fast);
  const Kernel& bump = wasm.kernel();
  RawVulkan raw(gpu.info(), embedded("bump.plain.spv"));
  auto us_per_call = [&](const auto& call) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < calls; ++i) call();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / calls;
  };
  auto wasm_call = [&] { bump(1u, counter); };
  auto raw_call = [&] { raw.call(); };
  wasm_call(), raw_call();  // warm-up: pipelines
  std::vector<double> wasm_us, raw_us;
  for (int r = 0; r < runs; ++r) {
    raw_us.push_back(us_per_call(raw_call));
    wasm_us.push_back(us_per_call(wasm_call));
  }
  const uint32_t expected = 1 + uint32_t(runs) * calls;
  uint32_t value = 0;
  download(counter, &value, 4);
  if (value != expected || raw.counter() != expected)
    throw std::runtime_error(fmt::format("sync: the counters read {} (kernel call) and {} (raw Vulkan) after {} calls",
                                         value, raw.counter(), expected));
  Row row;
  row.workload = "sync";
  row.size = fmt::format("{} calls", calls);
  row.unit = "us/call";
  row.lower_is_better = true;
  row.value[Variant::Glsl] = median(raw_us);
  row.value[Variant::WasmFast] = median(wasm_us);
  log(options, fmt::format("sync: {} synchronous calls each, verified", calls));
  if (cuda) row.cuda = cuda->run("sync", fmt::format("--size {}", calls), 1, runs).ms * 1000.0 / calls;
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
  const DeviceInfo& info = gpu.info();
  Report report;
  report.device = fmt::format("{} ({})", info.name, info.driver);
  std::unique_ptr<CudaRunner> cuda;
  if (options.cuda) cuda = std::make_unique<CudaRunner>(*options.cuda);
  log(options, "device: " + report.device);
  if (gpu.is_cpu())
    throw std::runtime_error(
        "the bench's device runs the GLSL twins (foreign SPIR-V), which the cpu device refuses; the cpu device is "
        "the table's `cpu` column (run the bench on a Vulkan device, lavapipe included)");
  // The CPU columns' devices: the cpu device (no cache: its compile times are
  // reported) and lavapipe, unless the bench's device is lavapipe itself.
  std::unique_ptr<Gpu> cpu, lavapipe;
  if (wanted_cpu_columns(options)) {
    try {
      cpu = std::make_unique<Gpu>(std::string("cpu"), false);
      cpu->cpu_fast_kernels = options.cpu_fast;
      log(options, "cpu column: " + cpu->info().name + " (" + cpu->info().driver + ")");
    } catch (const std::exception& e) {
      report.cpu_absent = e.what();
      log(options, std::string("cpu column: absent: ") + e.what());
    }
    if (!gpu.is_lavapipe()) {
      try {
        lavapipe = std::make_unique<Gpu>(std::string("llvmpipe"));
        if (!lavapipe->is_lavapipe()) throw std::runtime_error("'llvmpipe' opened " + lavapipe->info().name);
        log(options, "lavapipe column: " + lavapipe->info().name);
      } catch (const std::exception& e) {
        lavapipe.reset();
        report.lavapipe_absent = e.what();
        log(options, std::string("lavapipe column: absent: ") + e.what());
      }
    }
    if (options.cpu_fast) {
      report.native_absent = "--cpu-fast (the twins' checks compare exact mode's bits)";
      log(options, "native column: left out: " + report.native_absent);
    } else if (!native_twins_built()) {
      report.native_absent = "no libomp for clang-19 at build time (libomp-19-dev)";
      log(options, "native column: absent: " + report.native_absent);
    }
    stream_bandwidth(report, options);
  }

  {
    TracePhase phase("copy", "total");
    report.copy_gbs = copy_bandwidth(gpu, options);  // always: the memory-bound rows compare with it
  }
  std::optional<TracePhase> load_phase(std::in_place, "bench", "load the workloads' kernels and twins");
  auto workloads = make_workloads(gpu, options.only);
  load_phase.reset();
  for (auto& w : workloads) {
    Row row = measure(gpu, *w, options, cuda.get());
    const Variant user = user_variant(*w), column = cpu_variant(*w, options);
    if (gpu.is_lavapipe() && row.value.count(column)) row.lavapipe = row.value[column];
    // Without the cpu device the twin is checked against this device's run.
    const bool native = wanted_cpu_columns(options) && !options.cpu_fast;
    if (!cpu && native && row.value.count(user)) measure_native(gpu, *w, user, options, row);
    const std::string name = w->name();
    w.reset();  // frees its buffers: the next workload may need the whole wasm address space
    // --quick (the bench.quick test) keeps the CPU columns to the rows with
    // native twins: the PolyBench-style rows' barrier kernels take seconds
    // there (fibers), and the e2e suite's cpu tests cover the device.
    const bool cpu_row = !options.quick || std::find(std::begin(kNativeTwinRows), std::end(kNativeTwinRows), name) !=
                                               std::end(kNativeTwinRows);
    if (!cpu_row && (cpu || lavapipe))
      log(options, name + ": cpu and lavapipe columns left out with --quick (rows with native twins only)");
    if (cpu && cpu_row) {
      cpu->compile_times().clear();
      std::unique_ptr<Workload> on_cpu;
      {
        TracePhase phase(name, "cpu: load and compile");
        on_cpu = make_workload(*cpu, name);
      }
      for (const Gpu::CompileTime& c : cpu->compile_times()) {
        log(options,
            fmt::format("{}: cpu compile of {} ({}): {:.3f} s", name, c.kernel, c.exact ? "exact" : "fast", c.seconds));
        if (c.exact)
          row.cpu_compile_s = std::isnan(row.cpu_compile_s) ? c.seconds : std::max(row.cpu_compile_s, c.seconds);
      }
      row.cpu = measure_user(*cpu, *on_cpu, row.problem_size, options, "cpu");
      if (native && !std::isnan(row.cpu)) measure_native(*cpu, *on_cpu, user_variant(*on_cpu), options, row);
    }
    if (lavapipe && cpu_row) {
      std::unique_ptr<Workload> on_lavapipe = make_workload(*lavapipe, name);
      row.lavapipe = measure_user(*lavapipe, *on_lavapipe, row.problem_size, options, "lavapipe");
    }
    report.rows.push_back(std::move(row));
  }
  if (wanted(options, "launch")) {
    TracePhase phase("launch", "total");
    report.rows.push_back(launch_overhead(gpu, options, cuda.get()));
  }
  if (wanted(options, "sync")) {
    TracePhase phase("sync", "total");
    report.rows.push_back(sync_call(gpu, options, cuda.get()));
  }
  if (wanted(options, "compile")) {
    TracePhase phase("compile", "total");
    report.rows.push_back(compile_time(options));
  }
  if (const std::vector<std::string> messages = validation_messages(); !messages.empty())
    throw std::runtime_error(fmt::format("the Vulkan validation layer reported {} message(s), the first: {}",
                                         messages.size(), messages.front()));
  print(report, options.tsv);
}

}  // namespace wasmgpu::bench
