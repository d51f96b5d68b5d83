// PolyBench's bicg, s = A^T r and q = A p (bench/kernels/bicg.c,
// bench/glsl/bicg_s.comp and bicg_q.comp): two independent launches, s with
// one invocation per column, q with one workgroup of 256 per row. Bound by
// reading A twice: 8 bytes per matrix element.
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

// A in row-major order (for any n), r and p.
float input_a(uint64_t i) { return bench_unit(uint32_t(i), 15); }
float input_r(uint64_t i) { return bench_unit(uint32_t(i), 16); }
float input_p(uint64_t i) { return bench_unit(uint32_t(i), 17); }

class Bicg final : public Workload {
 public:
  explicit Bicg(Gpu& gpu) : s_kernel_(gpu, "bicg", "bicg_s"), q_kernel_(gpu, "bicg", "bicg_q") {}
  const char* name() const override { return "bicg"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 256; }
  uint64_t start_size() const override { return 1024; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 1, 4, 256, 65535); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }
  int size_exponent() const override { return 2; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      a_buf_.reset(), r_buf_.reset(), p_buf_.reset(), s_buf_.reset(), q_buf_.reset();
      a_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      r_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      p_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      s_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      q_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *a_buf_, capacity * capacity, input_a);
      upload_generated<float>(gpu, *r_buf_, capacity, input_r);
      upload_generated<float>(gpu, *p_buf_, capacity, input_p);
      capacity_ = capacity;
    }
    struct {
      uint64_t a, in, out;
      uint32_t n;
    } s{twin_address(gpu, *a_buf_), twin_address(gpu, *r_buf_), twin_address(gpu, *s_buf_), uint32_t(n)},
        q{twin_address(gpu, *a_buf_), twin_address(gpu, *p_buf_), twin_address(gpu, *q_buf_), uint32_t(n)};
    s_kernel_.prepare({uint32_t(n / 256), 1, 1}, {256, 1, 1}, {*a_buf_, *r_buf_, *s_buf_, uint32_t(n)}, &s, sizeof s);
    q_kernel_.prepare({uint32_t(n), 1, 1}, {256, 1, 1}, {*a_buf_, *p_buf_, *q_buf_, uint32_t(n)}, &q, sizeof q);
  }
  double work() const override { return 8.0 * double(n_) * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  // The two launches are independent: no barrier between them.
  void record(CommandBuffer& commands, Variant v) override {
    s_kernel_.record(commands, v);
    q_kernel_.record(commands, v);
  }
  KernelSet& kernels() override { return s_kernel_; }
  std::string no_default_reason() const override {
    return "two launches, the second's workgroups of 256 share a tree in workgroup memory: a user gives the size";
  }
  void reset(Gpu& gpu) override { fill(gpu, *s_buf_, 0xFFFFFFFFu), fill(gpu, *q_buf_, 0xFFFFFFFFu); }
  // Every element of s and q.
  void check(Gpu& gpu, Variant v) override {
    if (reference_n_ != n_) reference();
    for (int which = 0; which < 2; ++which) {
      const std::vector<float>& want = which ? q_ : s_;
      const std::vector<double>& scale = which ? q_scale_ : s_scale_;
      std::vector<float> got(n_);
      std::memcpy(got.data(), gpu.staging().download(which ? *q_buf_ : *s_buf_, 0, n_ * 4), n_ * 4);
      for (uint64_t i = 0; i < n_; ++i) {
        if (!sum_matches(v, got[i], want[i], scale[i]))
          mismatch(name(), v, fmt::format("{}[{}]", which ? "q" : "s", i), got[i], want[i]);
      }
    }
  }

 private:
  KernelSet s_kernel_, q_kernel_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  std::unique_ptr<BufferBase> a_buf_, r_buf_, p_buf_, s_buf_, q_buf_;
  std::vector<float> s_, q_;
  std::vector<double> s_scale_, q_scale_;

  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for n={}", n_));
    const uint64_t n = n_;
    std::vector<float> r(n), p(n);
    for (uint64_t i = 0; i < n; ++i) r[i] = input_r(i), p[i] = input_p(i);
    s_.assign(n, 0.0f), s_scale_.assign(n, 0.0), q_.assign(n, 0.0f), q_scale_.assign(n, 0.0);
    // s[j] in ascending i, columns in chunks (the rows walked once per chunk).
    parallel_for(n, 256, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = 0; i < n; ++i)
        for (uint64_t j = begin; j < end; ++j) {
          const float product = r[i] * input_a(i * n + j);
          s_[j] += product;
          s_scale_[j] += std::fabs(product);
        }
    });
    parallel_for(n, 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i)
        q_[i] = workgroup_dot(
            n, [&](uint64_t j) { return input_a(i * n + j); }, [&](uint64_t j) { return p[j]; }, q_scale_[i]);
    });
    reference_n_ = n;
  }
};

}  // namespace

std::unique_ptr<Workload> make_bicg(Gpu& gpu) { return std::make_unique<Bicg>(gpu); }

}  // namespace wasmgpu::bench
