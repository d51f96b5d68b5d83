#include "harness/trace.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "support/environment.h"

namespace wasmgpu::bench {
namespace {

bool& trace_flag() {
  static bool on = environment::bench_trace();
  return on;
}

}  // namespace

bool trace_enabled() { return trace_flag(); }
void set_trace(bool on) { trace_flag() = trace_flag() || on; }

TracePhase::TracePhase(std::string subject, std::string phase)
    : subject_(std::move(subject)), phase_(std::move(phase)), start_(std::chrono::steady_clock::now()) {}

double TracePhase::end() {
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  if (!done_ && trace_enabled()) std::fprintf(stderr, "trace: %s: %s %.1f ms\n", subject_.c_str(), phase_.c_str(), ms);
  done_ = true;
  return ms;
}

}  // namespace wasmgpu::bench
