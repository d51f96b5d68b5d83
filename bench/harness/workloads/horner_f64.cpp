// Double precision: a degree-64 polynomial in Horner form
// (bench/kernels/horner_f64.c, bench/glsl/horner_f64.comp). 2 * 64 flops per element.
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "bench_inputs.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

class HornerF64 final : public Workload {
 public:
  explicit HornerF64(Gpu& gpu) : kernels_(gpu, "horner_f64") {}
  const char* name() const override { return "horner_f64"; }
  Unit unit() const override { return Unit::Flops; }
  uint64_t quick_size() const override { return 1 << 14; }
  uint64_t start_size() const override { return 1 << 18; }
  uint64_t max_size(Gpu& gpu) const override {
    return std::min(memory_budget(gpu) / 16, max_invocations_1d(gpu, 256));
  }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }

  static double evaluate(double v, const std::vector<double>& coef) {
    double acc = coef[BENCH_HORNER_DEGREE];
    for (uint32_t k = BENCH_HORNER_DEGREE; k-- > 0;) {
      double product = acc * v;
      acc = product + coef[k];
    }
    return acc;
  }

  void setup(Gpu& gpu, uint64_t n) override {
    n_ = n;
    TracePhase t_gen(name(), "generate inputs");
    x_.resize(n);
    for (uint32_t i = 0; i < n; ++i) x_[i] = bench_unit(i, 7);
    coef_.resize(BENCH_HORNER_DEGREE + 1);
    for (uint32_t k = 0; k <= BENCH_HORNER_DEGREE; ++k) coef_[k] = bench_coefficient(k);
    t_gen.end();
    TracePhase t_up(name(), "allocate and upload");
    x_buf_.reset(), y_buf_.reset(), coef_buf_.reset();
    x_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * 8));
    y_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * 8));
    coef_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, coef_.size() * 8));
    upload(*x_buf_, x_.data(), n * 8);
    upload(*coef_buf_, coef_.data(), coef_.size() * 8);
    struct {
      uint64_t x, y, coef;
      uint32_t degree;
    } push{x_buf_->device_address(), y_buf_->device_address(), coef_buf_->device_address(), BENCH_HORNER_DEGREE};
    kernels_.prepare({uint32_t(n / 256), 1, 1}, {256, 1, 1}, {*x_buf_, *y_buf_, *coef_buf_, BENCH_HORNER_DEGREE},
                     &push, sizeof push);
  }
  double work() const override { return 2.0 * BENCH_HORNER_DEGREE * double(n_); }
  std::string size_text() const override { return fmt::format("n={} degree={}", n_, BENCH_HORNER_DEGREE); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(VkCommandBuffer cmd, Variant v) override { kernels_.record(cmd, v); }
  void reset(Gpu&) override { fill(*y_buf_, 0xFFFFFFFFu); }
  void check(Gpu&, Variant v) override {
    TracePhase t_down(name(), "download");
    std::vector<double> y(n_);
    download(*y_buf_, y.data(), n_ * 8);
    t_down.end();
    TracePhase t_cmp(name(), "compare");
    const uint64_t stride = std::max<uint64_t>(1, n_ >> 20);  // at most 2^20 elements checked
    for (uint64_t i = 0; i < n_; i += stride) {
      double expected = evaluate(x_[i], coef_);
      bool ok = is_exact(v) ? std::memcmp(&y[i], &expected, 8) == 0 : close(y[i], expected, 1e-12, 1.0);
      if (!ok) mismatch(name(), v, fmt::format("y[{}]", i), y[i], expected);
    }
  }

 private:
  KernelSet kernels_;
  uint64_t n_ = 0;
  std::vector<double> x_, coef_;
  std::unique_ptr<runtime::Buffer> x_buf_, y_buf_, coef_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_horner_f64(Gpu& gpu) { return std::make_unique<HornerF64>(gpu); }

}  // namespace wasmgpu::bench
