// `wasmgpu bench`: every workload as a wasm kernel (fast and exact float
// modes, and as kernel(n, ...) launches it with no workgroup size) against
// its GLSL twins (plain and `precise`) and, where given, its CUDA twins,
// verified and then timed with GPU timestamps; plus the device's copy
// bandwidth, launch overhead, a synchronous call's cost and the compiler's
// throughput. Everything goes through the public API (include/wasmgpu/).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wasmgpu::bench {

struct Options {
  // Tiny sizes, one run each: a correctness smoke test (timings meaningless).
  bool quick = false;
  bool tsv = false;
  // A device index or part of its name (default: WASMGPU_DEVICE, else discrete first).
  std::optional<std::string> device;
  // Run only these workloads (names as in the table; also "copy", "launch", "sync", "compile").
  std::vector<std::string> only;
  // Timed runs per variant, interleaved; the median is reported.
  int runs = 5;
  // Each timed sample lasts at least this long: sizes grow from a calibration
  // run up to the workload's memory cap, then runs repeat back to back.
  double min_ms = 20.0;
  // The CUDA twin program (bench/cuda); PATH-nofma is its -fmad=false build.
  std::optional<std::string> cuda;
  // Wall time of each host phase on standard error (also WASMGPU_BENCH_TRACE=1).
  bool verbose = false;
  // Dependent launches recorded in one command buffer for the launch overhead.
  unsigned launches = 10000;
  // The CPU columns: the wasm kernels on the cpu device and on lavapipe, and
  // the native twins (bench/native) with their STREAM and OpenBLAS references.
  bool cpu_columns = true;
  // The cpu and lavapipe columns in fast mode with the workloads' own grids
  // (a diagnostic: what exact mode's rules cost there); no native column then,
  // since its checks compare exact mode's bits.
  bool cpu_fast = false;
};

// Runs the benchmark and prints its tables on stdout. Throws std::runtime_error
// when a variant computes a wrong result or the device fails.
void run(const Options& options);

}  // namespace wasmgpu::bench
