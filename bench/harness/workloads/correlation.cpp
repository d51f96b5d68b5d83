// PolyBench's correlation (bench/kernels/correlation.c, bench/glsl/
// correlation_*.comp): the column means, the standard deviations, the
// normalised data, then the correlation matrix normal^T normal in 16 x 16
// shared-memory tiles (the tiles on and above the diagonal, each writing its
// mirror), four launches with a barrier between each. n^2 (n + 8) flops,
// nearly all in the product (PolyBench's triangle).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/parallel_for.h"
#include "harness/staging.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

// The data in row-major order (for any n): observations in rows, variables
// in columns.
float input(uint64_t i) { return bench_unit(uint32_t(i), 25); }

constexpr float kEps = 0.1f;  // PolyBench's: a smaller deviation counts as 1

class Correlation final : public Workload {
 public:
  explicit Correlation(Gpu& gpu)
      : mean_(gpu, "correlation", "correlation_mean"),
        std_(gpu, "correlation", "correlation_std"),
        normalize_(gpu, "correlation", "correlation_normalize"),
        corr_(gpu, "correlation", "correlation_corr") {}
  const char* name() const override { return "correlation"; }
  Unit unit() const override { return Unit::Flops; }
  uint64_t quick_size() const override { return 256; }
  uint64_t start_size() const override { return 512; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 3, 2, 256, 65535 * 16); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }
  int size_exponent() const override { return 3; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      for (auto* buffer : {&data_buf_, &mean_buf_, &std_buf_, &normal_buf_, &corr_buf_}) buffer->reset();
      data_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      mean_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      std_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      normal_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      corr_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *data_buf_, capacity * capacity, input);
      capacity_ = capacity;
    }
    const uint64_t data = twin_address(gpu, *data_buf_), mean = twin_address(gpu, *mean_buf_),
                   stddev = twin_address(gpu, *std_buf_), normal = twin_address(gpu, *normal_buf_),
                   corr = twin_address(gpu, *corr_buf_);
    const uint32_t n32 = uint32_t(n);
    const std::array<uint32_t, 3> columns = {uint32_t(n / 256), 1, 1}, tiles = {uint32_t(n / 16), uint32_t(n / 16), 1};
    struct {
      uint64_t data, mean;
      uint32_t n;
    } mean_push{data, mean, n32};
    mean_.prepare(columns, {256, 1, 1}, {*data_buf_, *mean_buf_, n32}, &mean_push, sizeof mean_push);
    struct {
      uint64_t data, mean, stddev;
      uint32_t n;
    } std_push{data, mean, stddev, n32};
    std_.prepare(columns, {256, 1, 1}, {*data_buf_, *mean_buf_, *std_buf_, n32}, &std_push, sizeof std_push);
    struct {
      uint64_t data, mean, stddev, normal;
      uint32_t n;
    } normalize_push{data, mean, stddev, normal, n32};
    normalize_.prepare(tiles, {16, 16, 1}, {*data_buf_, *mean_buf_, *std_buf_, *normal_buf_, n32}, &normalize_push,
                       sizeof normalize_push);
    struct {
      uint64_t normal, corr;
      uint32_t n;
    } corr_push{normal, corr, n32};
    corr_.prepare(tiles, {16, 16, 1}, {*normal_buf_, *corr_buf_, n32}, &corr_push, sizeof corr_push);
  }
  double work() const override { return double(n_) * double(n_) * double(n_ + 8); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override {
    mean_.record(commands, v);
    commands.barrier();
    std_.record(commands, v);
    commands.barrier();
    normalize_.record(commands, v);
    commands.barrier();
    corr_.record(commands, v);
  }
  KernelSet& kernels() override { return mean_; }
  std::string no_default_reason() const override {
    return "four launches, two on 2-D grids, the product's 16 x 16 workgroups sharing tiles: a user gives the size";
  }
  void reset(Gpu& gpu) override {
    for (BufferBase* buffer : {mean_buf_.get(), std_buf_.get(), normal_buf_.get(), corr_buf_.get()})
      fill(gpu, *buffer, 0xFFFFFFFFu);
  }
  // Every mean, deviation and normalised element; the correlation matrix at
  // 4,096 elements spread over it (both corners and the last diagonal element
  // included). Exact mode must give the reference's bits. The precise twin
  // is checked with a tolerance like the plain variants: it divides and
  // takes square roots, which Vulkan computes to 2.5 ulp (division) or as
  // derived from inversesqrt, not correctly rounded.
  void check(Gpu& gpu, Variant v) override {
    if (reference_n_ != n_) reference();
    const uint64_t n = n_;
    const bool bits = v == Variant::WasmExact;
    std::vector<float> mean(n), stddev(n);
    std::memcpy(mean.data(), gpu.staging().download(*mean_buf_, 0, n * 4), n * 4);
    std::memcpy(stddev.data(), gpu.staging().download(*std_buf_, 0, n * 4), n * 4);
    for (uint64_t j = 0; j < n; ++j) {
      bool ok = bits ? std::memcmp(&mean[j], &mean_ref_[j], 4) == 0 : std::fabs(mean[j] - mean_ref_[j]) <= 1e-5;
      if (!ok) mismatch(name(), v, fmt::format("mean[{}]", j), mean[j], mean_ref_[j]);
      ok = bits ? std::memcmp(&stddev[j], &std_ref_[j], 4) == 0 : close(stddev[j], std_ref_[j], 1e-5);
      if (!ok) mismatch(name(), v, fmt::format("stddev[{}]", j), stddev[j], std_ref_[j]);
    }
    const float unit = 1.0f / std::sqrt(float(n));  // the scale of a normalised element
    check_elements<float>(gpu, *normal_buf_, n * n, [&](uint64_t first, const float* out, uint64_t count) {
      for (uint64_t k = 0; k < count; ++k) {
        const float want = normal(first + k);
        bool ok = bits ? std::memcmp(&out[k], &want, 4) == 0 : close(out[k], want, 1e-4, unit);
        if (!ok) mismatch(name(), v, fmt::format("normal[{}][{}]", (first + k) / n, (first + k) % n), out[k], want);
      }
    });
    const uint64_t total = n * n, samples = std::min<uint64_t>(total, 4096);
    std::vector<uint64_t> at(samples);
    for (uint64_t s = 0; s < samples; ++s)
      at[s] = samples == total
                  ? s
                  : (s + 2 >= samples ? (s + 2 == samples ? n - 1 : total - 1) : bench_hash(uint32_t(s)) % total);
    const std::vector<float> corr = download_elements<float>(gpu, *corr_buf_, at);
    parallel_for(samples, 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t s = begin; s < end; ++s) {
        const uint64_t row = at[s] / n, col = at[s] % n, i = std::min(row, col), j = std::max(row, col);
        float want = 1.0f;
        if (i != j) {
          want = 0.0f;
          for (uint64_t k = 0; k < n; ++k) want += normal(k * n + i) * normal(k * n + j);
        }
        bool ok = bits ? std::memcmp(&corr[s], &want, 4) == 0 : std::fabs(corr[s] - want) <= 1e-4;
        if (!ok) mismatch(name(), v, fmt::format("corr[{}][{}]", row, col), corr[s], want);
      }
    });
  }

 private:
  KernelSet mean_, std_, normalize_, corr_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  std::unique_ptr<BufferBase> data_buf_, mean_buf_, std_buf_, normal_buf_, corr_buf_;
  std::vector<float> mean_ref_, std_ref_;  // the reference's means and deviations

  // The normalised element at i (row-major), from the reference's mean and
  // deviation, in the kernel's operations.
  float normal(uint64_t i) const {
    const uint64_t j = i % n_;
    return (input(i) - mean_ref_[j]) / (std::sqrt(float(n_)) * std_ref_[j]);
  }
  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for n={}", n_));
    const uint64_t n = n_;
    mean_ref_.assign(n, 0.0f), std_ref_.assign(n, 0.0f);
    // Columns in chunks, each sum in ascending i (the rows walked once per
    // chunk).
    parallel_for(n, 256, [&](uint64_t begin, uint64_t end) {
      std::vector<float> sums(end - begin, 0.0f);
      for (uint64_t i = 0; i < n; ++i)
        for (uint64_t j = begin; j < end; ++j) sums[j - begin] += input(i * n + j);
      for (uint64_t j = begin; j < end; ++j) mean_ref_[j] = sums[j - begin] / float(n);
      std::fill(sums.begin(), sums.end(), 0.0f);
      for (uint64_t i = 0; i < n; ++i)
        for (uint64_t j = begin; j < end; ++j) {
          const float d = input(i * n + j) - mean_ref_[j];
          sums[j - begin] += d * d;
        }
      for (uint64_t j = begin; j < end; ++j) {
        const float s = std::sqrt(sums[j - begin] / float(n));
        std_ref_[j] = s <= kEps ? 1.0f : s;
      }
    });
    reference_n_ = n;
  }
};

}  // namespace

std::unique_ptr<Workload> make_correlation(Gpu& gpu) { return std::make_unique<Correlation>(gpu); }

}  // namespace wasmgpu::bench
