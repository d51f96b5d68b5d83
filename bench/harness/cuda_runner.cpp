#include "harness/cuda_runner.h"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <sys/wait.h>

namespace wasmgpu::bench {
namespace {

// The value of `key=` on the program's "result" line.
double field(const std::string& line, const std::string& key) {
  size_t at = line.find(" " + key + "=");
  if (at == std::string::npos) return 0;
  return std::strtod(line.c_str() + at + key.size() + 2, nullptr);
}

std::string run_program(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string output;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = pclose(pipe);
  if (status != 0)
    throw std::runtime_error(fmt::format("CUDA twin failed (status {}): {}\n{}", WEXITSTATUS(status), command, output));
  return output;
}

std::string result_line(const std::string& output, const std::string& command) {
  size_t at = output.rfind("result ");
  if (at == std::string::npos) throw std::runtime_error("no result line from " + command + ":\n" + output);
  size_t end = output.find('\n', at);
  return " " + output.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

CudaRunner::CudaRunner(std::string program) : program_(std::move(program)) {}

CudaResult CudaRunner::run(const std::string& workload, const std::string& args, uint64_t iters, int runs) const {
  CudaResult result;
  for (int nofma = 0; nofma < 2; ++nofma) {
    const std::string command = fmt::format("'{}{}' --workload {} {} --iters {} --runs {} 2>&1", program_,
                                            nofma ? "-nofma" : "", workload, args, iters, runs);
    const std::string line = result_line(run_program(command), command);
    if (field(line, "verified") != 1) throw std::runtime_error("CUDA twin did not verify its result: " + line);
    (nofma ? result.ms_nofma : result.ms) = field(line, "ms");
    if (!nofma) result.ms_library = field(line, "library_ms");
  }
  return result;
}

}  // namespace wasmgpu::bench
