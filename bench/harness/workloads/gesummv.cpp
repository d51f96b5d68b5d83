// PolyBench's gesummv, y = alpha A x + beta B x (bench/kernels/gesummv.c,
// bench/glsl/gesummv.comp): one workgroup of 256 per row. Bound by reading A
// and B: 8 bytes per matrix element.
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

// A and B in row-major order (for any n), and x.
float input_a(uint64_t i) { return bench_unit(uint32_t(i), 10); }
float input_b(uint64_t i) { return bench_unit(uint32_t(i), 11); }
float input_x(uint64_t i) { return bench_unit(uint32_t(i), 12); }

class Gesummv final : public Workload {
 public:
  explicit Gesummv(Gpu& gpu) : kernels_(gpu, "gesummv") {}
  const char* name() const override { return "gesummv"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 256; }
  uint64_t start_size() const override { return 1024; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 2, 2, 256, 65535); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }
  int size_exponent() const override { return 2; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      a_buf_.reset(), b_buf_.reset(), x_buf_.reset(), y_buf_.reset();
      a_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      b_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      x_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      y_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *a_buf_, capacity * capacity, input_a);
      upload_generated<float>(gpu, *b_buf_, capacity * capacity, input_b);
      upload_generated<float>(gpu, *x_buf_, capacity, input_x);
      capacity_ = capacity;
    }
    // The rows of an n x n matrix are a prefix of the capacity's elements
    // (A[i][j] at i * n + j): the inputs of this n.
    struct {
      uint64_t a, b, x, y;
      float alpha, beta;
      uint32_t n;
    } push{twin_address(gpu, *a_buf_),
           twin_address(gpu, *b_buf_),
           twin_address(gpu, *x_buf_),
           twin_address(gpu, *y_buf_),
           BENCH_ALPHA,
           BENCH_BETA,
           uint32_t(n)};
    kernels_.prepare({uint32_t(n), 1, 1}, {256, 1, 1},
                     {*a_buf_, *b_buf_, *x_buf_, *y_buf_, BENCH_ALPHA, BENCH_BETA, uint32_t(n)}, &push, sizeof push);
  }
  double work() const override { return 8.0 * double(n_) * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  std::string no_default_reason() const override {
    return "its workgroups of 256 share a tree in workgroup memory (local and workgroup ids, barriers): a user gives "
           "the size";
  }
  void reset(Gpu& gpu) override { fill(gpu, *y_buf_, 0xFFFFFFFFu); }
  // Every element of y.
  void check(Gpu& gpu, Variant v) override {
    if (reference_n_ != n_) reference();
    std::vector<float> y(n_);
    const uint8_t* host = gpu.staging().download(*y_buf_, 0, n_ * 4);
    std::memcpy(y.data(), host, n_ * 4);
    for (uint64_t i = 0; i < n_; ++i) {
      if (!sum_matches(v, y[i], expected_[i], scale_[i]))
        mismatch(name(), v, fmt::format("y[{}]", i), y[i], expected_[i]);
    }
  }

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  std::unique_ptr<BufferBase> a_buf_, b_buf_, x_buf_, y_buf_;
  std::vector<float> expected_;
  std::vector<double> scale_;

  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for n={}", n_));
    const uint64_t n = n_;
    std::vector<float> x(n);
    for (uint64_t j = 0; j < n; ++j) x[j] = input_x(j);
    expected_.assign(n, 0.0f), scale_.assign(n, 0.0);
    parallel_for(n, 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) {
        double magnitude_a = 0.0, magnitude_b = 0.0;
        const float sum_a = workgroup_dot(
            n, [&](uint64_t j) { return input_a(i * n + j); }, [&](uint64_t j) { return x[j]; }, magnitude_a);
        const float sum_b = workgroup_dot(
            n, [&](uint64_t j) { return input_b(i * n + j); }, [&](uint64_t j) { return x[j]; }, magnitude_b);
        expected_[i] = BENCH_ALPHA * sum_a + BENCH_BETA * sum_b;
        scale_[i] = BENCH_ALPHA * magnitude_a + BENCH_BETA * magnitude_b;
      }
    });
    reference_n_ = n;
  }
};

}  // namespace

std::unique_ptr<Workload> make_gesummv(Gpu& gpu) { return std::make_unique<Gesummv>(gpu); }

}  // namespace wasmgpu::bench
