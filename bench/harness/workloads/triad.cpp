// STREAM triad (bench/kernels/triad.c, bench/glsl/triad.comp).
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "bench_inputs.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

class Triad final : public Workload {
 public:
  explicit Triad(Gpu& gpu) : kernels_(gpu, "triad") {}
  const char* name() const override { return "triad"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 1 << 16; }
  uint64_t start_size() const override { return 1 << 20; }
  uint64_t max_size(Gpu& gpu) const override {
    return std::min(memory_budget(gpu) / 12, max_invocations_1d(gpu, 256));
  }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }

  void setup(Gpu& gpu, uint64_t n) override {
    n_ = n;
    TracePhase t_gen(name(), "generate inputs");
    b_.resize(n);
    c_.resize(n);
    for (uint32_t i = 0; i < n; ++i) b_[i] = bench_unit(i, 1), c_[i] = bench_unit(i, 2);
    t_gen.end();
    TracePhase t_up(name(), "allocate and upload");
    a_buf_.reset(), b_buf_.reset(), c_buf_.reset();
    a_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * 4));
    b_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * 4));
    c_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, n * 4));
    upload(*b_buf_, b_.data(), n * 4);
    upload(*c_buf_, c_.data(), n * 4);
    struct {
      uint64_t a, b, c;
      float s;
      uint32_t n;
    } push{a_buf_->device_address(), b_buf_->device_address(), c_buf_->device_address(), BENCH_TRIAD_SCALAR,
           uint32_t(n)};
    kernels_.prepare({uint32_t(n / 256), 1, 1}, {256, 1, 1},
                     {*a_buf_, *b_buf_, *c_buf_, BENCH_TRIAD_SCALAR, uint32_t(n)}, &push, sizeof push);
  }
  double work() const override { return 12.0 * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(VkCommandBuffer cmd, Variant v) override { kernels_.record(cmd, v); }
  void reset(Gpu&) override { fill(*a_buf_, 0xFFFFFFFFu); }
  void check(Gpu&, Variant v) override {
    TracePhase t_down(name(), "download");
    std::vector<float> a(n_);
    download(*a_buf_, a.data(), n_ * 4);
    t_down.end();
    TracePhase t_cmp(name(), "compare");
    for (uint64_t i = 0; i < n_; ++i) {
      float product = BENCH_TRIAD_SCALAR * c_[i];
      float expected = b_[i] + product;
      bool ok = is_exact(v) ? std::memcmp(&a[i], &expected, 4) == 0 : close(a[i], expected, 1e-6, 1.0);
      if (!ok) mismatch(name(), v, fmt::format("a[{}]", i), a[i], expected);
    }
  }

 private:
  KernelSet kernels_;
  uint64_t n_ = 0;
  std::vector<float> b_, c_;
  std::unique_ptr<runtime::Buffer> a_buf_, b_buf_, c_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_triad(Gpu& gpu) { return std::make_unique<Triad>(gpu); }

}  // namespace wasmgpu::bench
