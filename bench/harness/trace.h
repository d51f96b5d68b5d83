// Phase timings of the bench's host side on standard error: `wasmgpu bench
// --verbose` or WASMGPU_BENCH_TRACE=1. Each phase prints its wall time when it
// ends, e.g. "trace: triad n=1048576: generate inputs 12.3 ms".
#pragma once

#include <chrono>
#include <string>

namespace wasmgpu::bench {

// On when set_trace(true) was called or WASMGPU_BENCH_TRACE is set (not "0").
bool trace_enabled();
void set_trace(bool on);

// Times one phase from construction to destruction (or end()).
class TracePhase {
 public:
  TracePhase(std::string subject, std::string phase);
  ~TracePhase() { end(); }
  TracePhase(const TracePhase&) = delete;
  TracePhase& operator=(const TracePhase&) = delete;
  // Prints the phase's time now (once); returns it in ms.
  double end();

 private:
  std::string subject_, phase_;
  std::chrono::steady_clock::time_point start_;
  bool done_ = false;
};

}  // namespace wasmgpu::bench
