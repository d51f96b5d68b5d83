// PolyBench's atax, y = A^T (A x) (bench/kernels/atax.c, bench/glsl/atax_ax.comp
// and atax_atx.comp): tmp = A x with one workgroup of 256 per row, a barrier,
// then y = A^T tmp with one invocation per column. Bound by reading A twice:
// 8 bytes per matrix element.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/parallel_for.h"
#include "harness/staging.h"
#include "harness/trace.h"
#include "harness/workloads/row_sums.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

// A in row-major order (for any n), and x.
float input_a(uint64_t i) { return bench_unit(uint32_t(i), 13); }
float input_x(uint64_t i) { return bench_unit(uint32_t(i), 14); }

class Atax final : public Workload {
 public:
  explicit Atax(Gpu& gpu) : ax_(gpu, "atax", "atax_ax"), atx_(gpu, "atax", "atax_atx") {}
  const char* name() const override { return "atax"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 256; }
  uint64_t start_size() const override { return 1024; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 1, 3, 256, 65535); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }
  int size_exponent() const override { return 2; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      a_buf_.reset(), x_buf_.reset(), tmp_buf_.reset(), y_buf_.reset();
      a_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      x_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      tmp_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      y_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *a_buf_, capacity * capacity, input_a);
      upload_generated<float>(gpu, *x_buf_, capacity, input_x);
      capacity_ = capacity;
    }
    struct {
      uint64_t a, x, y;
      uint32_t n;
    } ax{twin_address(gpu, *a_buf_), twin_address(gpu, *x_buf_), twin_address(gpu, *tmp_buf_), uint32_t(n)},
        atx{twin_address(gpu, *a_buf_), twin_address(gpu, *tmp_buf_), twin_address(gpu, *y_buf_), uint32_t(n)};
    ax_.prepare({uint32_t(n), 1, 1}, {256, 1, 1}, {*a_buf_, *x_buf_, *tmp_buf_, uint32_t(n)}, &ax, sizeof ax);
    atx_.prepare({uint32_t(n / 256), 1, 1}, {256, 1, 1}, {*a_buf_, *tmp_buf_, *y_buf_, uint32_t(n)}, &atx, sizeof atx);
  }
  double work() const override { return 8.0 * double(n_) * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override {
    ax_.record(commands, v);
    commands.barrier();
    atx_.record(commands, v);
  }
  KernelSet& kernels() override { return ax_; }
  std::string no_default_reason() const override {
    return "two launches, the first's workgroups of 256 share a tree in workgroup memory: a user gives the size";
  }
  void reset(Gpu& gpu) override { fill(gpu, *tmp_buf_, 0xFFFFFFFFu), fill(gpu, *y_buf_, 0xFFFFFFFFu); }
  // Every element of tmp, then every element of y against A^T times the
  // tmp the variant computed (its bits are the reference's in the exact
  // variants; in the others, tmp's rounding errors would otherwise add up
  // in y beyond any tolerance that still catches a wrong result).
  void check(Gpu& gpu, Variant v) override {
    if (reference_n_ != n_) reference();
    const uint64_t n = n_;
    std::vector<float> tmp(n), y(n);
    std::memcpy(tmp.data(), gpu.staging().download(*tmp_buf_, 0, n * 4), n * 4);
    std::memcpy(y.data(), gpu.staging().download(*y_buf_, 0, n * 4), n * 4);
    for (uint64_t i = 0; i < n; ++i) {
      if (!sum_matches(v, tmp[i], tmp_[i], tmp_scale_[i]))
        mismatch(name(), v, fmt::format("tmp[{}]", i), tmp[i], tmp_[i]);
    }
    // y[j] in ascending i, columns in chunks (the rows walked once per chunk).
    std::vector<float> want(n, 0.0f);
    std::vector<double> scale(n, 0.0);
    parallel_for(n, 256, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = 0; i < n; ++i)
        for (uint64_t j = begin; j < end; ++j) {
          const float product = input_a(i * n + j) * tmp[i];
          want[j] += product;
          scale[j] += std::fabs(product);
        }
      for (uint64_t j = begin; j < end; ++j) {
        if (!sum_matches(v, y[j], want[j], scale[j])) mismatch(name(), v, fmt::format("y[{}]", j), y[j], want[j]);
      }
    });
  }

 private:
  KernelSet ax_, atx_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  std::unique_ptr<BufferBase> a_buf_, x_buf_, tmp_buf_, y_buf_;
  std::vector<float> tmp_;
  std::vector<double> tmp_scale_;

  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for n={}", n_));
    const uint64_t n = n_;
    std::vector<float> x(n);
    for (uint64_t j = 0; j < n; ++j) x[j] = input_x(j);
    tmp_.assign(n, 0.0f), tmp_scale_.assign(n, 0.0);
    parallel_for(n, 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i)
        tmp_[i] = workgroup_dot(
            n, [&](uint64_t j) { return input_a(i * n + j); }, [&](uint64_t j) { return x[j]; }, tmp_scale_[i]);
    });
    reference_n_ = n;
  }
};

}  // namespace

std::unique_ptr<Workload> make_atax(Gpu& gpu) { return std::make_unique<Atax>(gpu); }

}  // namespace wasmgpu::bench
