// Runs the CUDA twin program (bench/cuda) as a subprocess, one workload per
// call, and reads its machine-readable result line.
#pragma once

#include <cstdint>
#include <string>

namespace wasmgpu::bench {

struct CudaResult {
  double ms = 0;          // median ms per run, nvcc -O3
  double ms_nofma = 0;    // the -fmad=false build
  double ms_library = 0;  // cuBLAS (sgemm only), else 0
};

class CudaRunner {
 public:
  // `program`: the -O3 build; `program`-nofma is the -fmad=false build.
  explicit CudaRunner(std::string program);
  // Runs both builds on `workload` with `args` (sizes), `iters` runs per
  // sample and `runs` samples; throws when either fails or reports a wrong result.
  CudaResult run(const std::string& workload, const std::string& args, uint64_t iters, int runs) const;

 private:
  std::string program_;
};

}  // namespace wasmgpu::bench
