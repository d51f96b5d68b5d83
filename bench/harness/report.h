// The bench's results and their two printed forms: an aligned text table and
// TSV whose header names the columns.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "harness/workload.h"

namespace wasmgpu::bench {

struct Row {
  std::string workload, size, unit;
  bool memory_bound = false;
  // Times (us/launch) rather than throughputs: ratios are inverted so that
  // a ratio above 1 always means wasm is faster.
  bool lower_is_better = false;
  std::map<Variant, double> value;  // throughput in `unit` (or time), per variant
  std::map<Variant, double> ms;     // milliseconds per run
  double cuda = NAN, cuda_nofma = NAN;
  double cuda_library = NAN;  // cuBLAS for SGEMM
  // The CPU columns, all at one problem size (the row's, or less where the
  // cpu device's memory allows less): the wasm kernel on the cpu device and
  // on lavapipe, launched as a user does (kernel(n, ...) where the workload
  // has it, else its own grid; exact mode), and the native twin.
  double cpu = NAN, lavapipe = NAN, native = NAN;
  // The native twin's reference (harness/native.h): a library's throughput
  // for the same problem (OpenBLAS SGEMM), printed as a row of its own.
  std::string library;
  double library_value = NAN;
  // The slowest of the workload's kernels to load and compile on the cpu
  // device (exact mode, no cache), in seconds.
  double cpu_compile_s = NAN;
  uint64_t problem_size = 0;  // Workload::setup's size of the measured row
};

struct Report {
  std::string device;
  double copy_gbs = NAN;  // vkCmdCopyBuffer, bytes read + written per second
  // STREAM-style copy and triad over all cores (bench/native/stream.c),
  // bytes read + written per second: the memory-bound rows' native/ref.
  double stream_copy_gbs = NAN, stream_triad_gbs = NAN;
  std::string stream_size;
  // Why a CPU column has no values ("absent": no such device or build).
  std::string cpu_absent, lavapipe_absent, native_absent;
  std::vector<Row> rows;
};

void print(const Report& report, bool tsv);

}  // namespace wasmgpu::bench
