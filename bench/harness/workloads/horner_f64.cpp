// Double precision: a degree-64 polynomial in Horner form
// (bench/kernels/horner_f64.c, bench/glsl/horner_f64.comp). 2 * 64 flops per element.
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/parallel_for.h"
#include "harness/staging.h"
#include "harness/sample.h"
#include "harness/trace.h"
#include "harness/native.h"
#include "harness/workloads/workloads.h"

#if WASMGPU_BENCH_NATIVE
#include "native_twins.h"
#endif

namespace wasmgpu::bench {
namespace {

double input(uint64_t i) { return bench_unit(uint32_t(i), 7); }

class HornerF64 final : public Workload {
 public:
  explicit HornerF64(Gpu& gpu) : kernels_(gpu, "horner_f64") {}
  const char* name() const override { return "horner_f64"; }
  Unit unit() const override { return Unit::Flops; }
  uint64_t quick_size() const override { return 1 << 14; }
  uint64_t start_size() const override { return 1 << 18; }
  uint64_t max_size(Gpu& gpu) const override { return std::min(memory_budget(gpu) / 16, max_invocations_1d(gpu, 256)); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }

  static double evaluate(double v, const std::vector<double>& coef) {
    double acc = coef[BENCH_HORNER_DEGREE];
    for (uint32_t k = BENCH_HORNER_DEGREE; k-- > 0;) {
      double product = acc * v;
      acc = product + coef[k];
    }
    return acc;
  }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      coef_.resize(BENCH_HORNER_DEGREE + 1);
      for (uint32_t k = 0; k <= BENCH_HORNER_DEGREE; ++k) coef_[k] = bench_coefficient(k);
      x_buf_.reset(), y_buf_.reset(), coef_buf_.reset();
      x_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 8));
      y_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 8));
      coef_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, coef_.size() * 8));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<double>(gpu, *x_buf_, capacity, input);
      upload(*coef_buf_, coef_.data(), coef_.size() * 8);
      capacity_ = capacity;
    }
    struct {
      uint64_t x, y, coef;
      uint32_t degree;
    } push{twin_address(gpu, *x_buf_), twin_address(gpu, *y_buf_), twin_address(gpu, *coef_buf_), BENCH_HORNER_DEGREE};
    kernels_.prepare({uint32_t(n / 256), 1, 1}, {256, 1, 1}, {*x_buf_, *y_buf_, *coef_buf_, BENCH_HORNER_DEGREE}, &push,
                     sizeof push);
    kernels_.prepare_default(uint32_t(n), {*x_buf_, *y_buf_, *coef_buf_, BENCH_HORNER_DEGREE});
  }
  double work() const override { return 2.0 * BENCH_HORNER_DEGREE * double(n_); }
  std::string size_text() const override { return fmt::format("n={} degree={}", n_, BENCH_HORNER_DEGREE); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  void reset(Gpu& gpu) override { fill(gpu, *y_buf_, 0xFFFFFFFFu); }
  // At most 2^20 elements: 1,024 runs of 1,024 spread over y, its first and
  // last elements included.
  void check(Gpu& gpu, Variant v) override {
    const std::vector<uint64_t> at = sample_indices(n_, 1 << 20, 1024);
    const std::vector<double> y = download_elements<double>(gpu, *y_buf_, at);
    parallel_for(at.size(), 1024, [&](uint64_t begin, uint64_t end) {
      for (uint64_t s = begin; s < end; ++s) {
        double expected = evaluate(input(at[s]), coef_);
        bool ok = is_exact(v) ? std::memcmp(&y[s], &expected, 8) == 0 : close(y[s], expected, 1e-12, 1.0);
        if (!ok) mismatch(name(), v, fmt::format("y[{}]", at[s]), y[s], expected);
      }
    });
  }

#if WASMGPU_BENCH_NATIVE
  std::unique_ptr<NativeTwin> native_twin() override {
    struct Arrays {
      std::vector<double> x, y;
    };
    const uint64_t n = n_;
    auto d = std::make_shared<Arrays>(Arrays{generated<double>(n, input), std::vector<double>(n)});
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [this, d, n] { native_horner_f64(d->x.data(), d->y.data(), n, coef_.data(), BENCH_HORNER_DEGREE); };
    twin->check = [this, d, n](Gpu& gpu, Variant v) {
      check_native_bytes<double>(gpu, *y_buf_, d->y.data(), n, name(), v, "y");
    };
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0;
  std::vector<double> coef_;
  std::unique_ptr<BufferBase> x_buf_, y_buf_, coef_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_horner_f64(Gpu& gpu) { return std::make_unique<HornerF64>(gpu); }

}  // namespace wasmgpu::bench
