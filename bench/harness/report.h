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
};

struct Report {
  std::string device;
  double copy_gbs = NAN;  // vkCmdCopyBuffer, bytes read + written per second
  std::vector<Row> rows;
};

void print(const Report& report, bool tsv);

}  // namespace wasmgpu::bench
