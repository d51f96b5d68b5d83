// wasmgpu bench: wasm kernels against hand-written GLSL (and CUDA) twins on
// the same device, timed with GPU timestamps (bench/README.md).
#include <fmt/core.h>

#include <filesystem>
#include <stdexcept>

#include "cli/cli_support.h"
#include "cli/commands.h"
#include "harness/bench.h"

namespace wasmgpu::cli {

void add_bench_command(CLI::App& app) {
  auto options = std::make_shared<bench::Options>();
  auto workloads = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "Benchmark wasm kernels against GLSL twins (and CUDA twins with --cuda): stream triad, sum reduction, "
      "Mandelbrot (f32), tiled SGEMM, 2-D stencil, f64 polynomial, byte histogram, array of structs; each in "
      "fast and exact float modes against plain and `precise` GLSL, verified against the CPU, then timed "
      "with GPU timestamps (median of interleaved runs); plus copy bandwidth, launch overhead and compile "
      "throughput");
  cmd->add_flag("--quick", options->quick, "Tiny sizes, one run: a correctness smoke test (timings meaningless)");
  cmd->add_option_function<std::string>(
         "--format", [options](const std::string& f) { options->tsv = f == "tsv"; },
         "text (default: an aligned table) or tsv (a header row naming the columns, then one row per workload)")
      ->check(CLI::IsMember({"text", "tsv"}));
  cmd->add_option("--device", options->device,
                  "Device index or part of its name (default: WASMGPU_DEVICE, else discrete GPU first)");
  cmd->add_option("--only", *workloads,
                  "Comma-separated workloads: triad, reduce, mandelbrot, sgemm, stencil, horner_f64, histogram, "
                  "particles, jacobi_2d, gesummv, atax, bicg, 2mm, fdtd_2d, correlation, launch, sync, compile "
                  "(default: all; the copy bandwidth is always measured)");
  cmd->add_option("--runs", options->runs, "Timed runs per variant, interleaved; the median is reported")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--min-ms", options->min_ms,
                  "Each timed sample lasts at least this long: sizes grow from a calibration run up to the memory "
                  "cap, then runs repeat back to back in one command buffer")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10000.0));
  cmd->add_flag("--verbose", options->verbose,
                "Print the wall time of each host phase (inputs, references, checks, calibration, timed runs) on "
                "standard error; also WASMGPU_BENCH_TRACE=1");
  cmd->add_option("--launches", options->launches, "Dependent launches in one command buffer (launch overhead)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  cmd->add_flag_function(
      "--no-cpu", [options](int64_t) { options->cpu_columns = false; },
      "Leave out the CPU columns (the wasm kernels on the cpu device and on lavapipe, the native OpenMP "
      "twins and their STREAM and OpenBLAS references)");
  cmd->add_flag("--cpu-fast", options->cpu_fast,
                "The cpu and lavapipe columns in fast mode with each workload's own grid (what exact mode costs "
                "there); leaves out the native column, whose checks compare exact mode's bits");
  cmd->add_option("--cuda", options->cuda,
                  "The CUDA twin program built from bench/cuda (PATH-nofma must be its -fmad=false build); "
                  "default: bench/cuda/build/wasmgpu-bench-cuda when it exists");
  cmd->callback([options, workloads] {
    options->only.clear();
    std::string list = *workloads;
    for (size_t start = 0; start < list.size();) {
      size_t comma = list.find(',', start);
      std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!name.empty()) options->only.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (!options->cuda && std::filesystem::exists("bench/cuda/build/wasmgpu-bench-cuda"))
      options->cuda = "bench/cuda/build/wasmgpu-bench-cuda";
    try {
      bench::run(*options);
    } catch (const std::exception& e) {
      fail(std::string("bench: ") + e.what());
    }
  });
}

}  // namespace wasmgpu::cli
