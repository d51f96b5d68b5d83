// SGEMM with shared-memory tiles and register blocking (bench/kernels/sgemm.c,
// bench/glsl/sgemm.comp). 2 n^3 flops.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench_inputs.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

class Sgemm final : public Workload {
 public:
  explicit Sgemm(Gpu& gpu) : kernels_(gpu, "sgemm") {}
  const char* name() const override { return "sgemm"; }
  Unit unit() const override { return Unit::Flops; }
  uint64_t quick_size() const override { return 128; }
  uint64_t start_size() const override { return 256; }
  uint64_t max_size(Gpu& gpu) const override {
    uint64_t n = 128;
    while (3 * (n + 128) * (n + 128) * 4 <= memory_budget(gpu) && n + 128 <= 16384) n += 128;
    return n;
  }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(128, n / 128 * 128); }
  int size_exponent() const override { return 3; }

  void setup(Gpu& gpu, uint64_t n) override {
    n_ = n;
    TracePhase t_gen(name(), "generate inputs");
    a_.resize(n * n);
    b_.resize(n * n);
    for (uint32_t i = 0; i < n * n; ++i) a_[i] = bench_unit(i, 4), b_[i] = bench_unit(i, 5);
    t_gen.end();
    TracePhase t_up(name(), "allocate and upload");
    a_buf_.reset(), b_buf_.reset(), c_buf_.reset();
    a_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * n * 4));
    b_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * n * 4));
    c_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * n * 4));
    upload(*a_buf_, a_.data(), n * n * 4);
    upload(*b_buf_, b_.data(), n * n * 4);
    struct {
      uint64_t a, b, c;
      uint32_t n;
    } push{a_buf_->device_address(), b_buf_->device_address(), c_buf_->device_address(), uint32_t(n)};
    kernels_.prepare({uint32_t(n / 128), uint32_t(n / 128), 1}, {256, 1, 1},
                     {*a_buf_, *b_buf_, *c_buf_, uint32_t(n)}, &push, sizeof push);
  }
  double work() const override { return 2.0 * double(n_) * double(n_) * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  std::string skip_reason(Gpu& gpu, Variant v) const override {
    if (v == Variant::WasmExact && gpu.device().info().type == runtime::DeviceType::Cpu)
      return "exact-mode SGEMM not run on a CPU device: llvmpipe spends over 5 minutes compiling its pipeline "
             "(64 unrolled exact multiply-adds per k step)";
    return {};
  }
  void record(VkCommandBuffer cmd, Variant v) override { kernels_.record(cmd, v); }
  void reset(Gpu&) override { fill(*c_buf_, 0xFFFFFFFFu); }
  void check(Gpu&, Variant v) override {
    TracePhase t_down(name(), "download");
    std::vector<float> c(n_ * n_);
    download(*c_buf_, c.data(), c.size() * 4);
    t_down.end();
    TracePhase t_cmp(name(), "compare");
    // Every element of small results; else 4096 spread over C, corners included.
    const uint64_t total = n_ * n_, samples = std::min<uint64_t>(total, 4096);
    for (uint64_t s = 0; s < samples; ++s) {
      uint64_t at = samples == total ? s : (s == samples - 1 ? total - 1 : bench_hash(uint32_t(s)) % total);
      uint64_t row = at / n_, col = at % n_;
      float sum = 0.0f;
      double magnitude = 0.0;
      for (uint64_t k = 0; k < n_; ++k) {
        float product = a_[row * n_ + k] * b_[k * n_ + col];
        sum += product;
        magnitude += std::fabs(product);
      }
      bool ok = is_exact(v) ? std::memcmp(&c[at], &sum, 4) == 0 : std::fabs(c[at] - sum) <= 1e-5 * magnitude + 1e-6;
      if (!ok) mismatch(name(), v, fmt::format("C[{}][{}]", row, col), c[at], sum);
    }
  }

 private:
  KernelSet kernels_;
  uint64_t n_ = 0;
  std::vector<float> a_, b_;
  std::unique_ptr<runtime::Buffer> a_buf_, b_buf_, c_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_sgemm(Gpu& gpu) { return std::make_unique<Sgemm>(gpu); }

}  // namespace wasmgpu::bench
