// PolyBench's 2mm, out = alpha A B C + beta D (bench/kernels/mm2.c,
// bench/glsl/mm2_tmp.comp and mm2_out.comp): tmp = alpha (A B), a barrier,
// then out = beta D + tmp C, each a matrix product in 16 x 16 shared-memory
// tiles, one element per invocation. 4 n^3 flops.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/parallel_for.h"
#include "harness/sample.h"
#include "harness/staging.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

// A, B, C and D in row-major order (for any n).
float input_a(uint64_t i) { return bench_unit(uint32_t(i), 18); }
float input_b(uint64_t i) { return bench_unit(uint32_t(i), 19); }
float input_c(uint64_t i) { return bench_unit(uint32_t(i), 20); }
float input_d(uint64_t i) { return bench_unit(uint32_t(i), 21); }

class Mm2 final : public Workload {
 public:
  explicit Mm2(Gpu& gpu) : tmp_kernel_(gpu, "mm2", "mm2_tmp"), out_kernel_(gpu, "mm2", "mm2_out") {}
  const char* name() const override { return "2mm"; }
  Unit unit() const override { return Unit::Flops; }
  uint64_t quick_size() const override { return 128; }
  uint64_t start_size() const override { return 256; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 6, 0, 16, 65535 * 16); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(16, n / 16 * 16); }
  int size_exponent() const override { return 3; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      for (auto* buffer : {&a_buf_, &b_buf_, &c_buf_, &d_buf_, &tmp_buf_, &out_buf_}) buffer->reset();
      const uint64_t bytes = capacity * capacity * 4;
      for (auto* buffer : {&a_buf_, &b_buf_, &c_buf_, &d_buf_, &tmp_buf_, &out_buf_})
        *buffer = std::make_unique<BufferBase>(make_buffer(gpu, bytes));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *a_buf_, capacity * capacity, input_a);
      upload_generated<float>(gpu, *b_buf_, capacity * capacity, input_b);
      upload_generated<float>(gpu, *c_buf_, capacity * capacity, input_c);
      upload_generated<float>(gpu, *d_buf_, capacity * capacity, input_d);
      capacity_ = capacity;
    }
    struct {
      uint64_t a, b, tmp;
      float alpha;
      uint32_t n;
    } first{twin_address(gpu, *a_buf_), twin_address(gpu, *b_buf_), twin_address(gpu, *tmp_buf_), BENCH_ALPHA,
            uint32_t(n)};
    struct {
      uint64_t tmp, c, d, out;
      float beta;
      uint32_t n;
    } second{twin_address(gpu, *tmp_buf_),
             twin_address(gpu, *c_buf_),
             twin_address(gpu, *d_buf_),
             twin_address(gpu, *out_buf_),
             BENCH_BETA,
             uint32_t(n)};
    const std::array<uint32_t, 3> groups = {uint32_t(n / 16), uint32_t(n / 16), 1}, size = {16, 16, 1};
    tmp_kernel_.prepare(groups, size, {*a_buf_, *b_buf_, *tmp_buf_, BENCH_ALPHA, uint32_t(n)}, &first, sizeof first);
    out_kernel_.prepare(groups, size, {*tmp_buf_, *c_buf_, *d_buf_, *out_buf_, BENCH_BETA, uint32_t(n)}, &second,
                        sizeof second);
  }
  double work() const override { return 4.0 * double(n_) * double(n_) * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override {
    tmp_kernel_.record(commands, v);
    commands.barrier();
    out_kernel_.record(commands, v);
  }
  KernelSet& kernels() override { return tmp_kernel_; }
  std::string no_default_reason() const override {
    return "a 2-D grid of 16 x 16 workgroups that share tiles in workgroup memory: a user gives the size";
  }
  void reset(Gpu& gpu) override { fill(gpu, *tmp_buf_, 0xFFFFFFFFu), fill(gpu, *out_buf_, 0xFFFFFFFFu); }
  // Sampled: tmp at 4,096 elements spread over it (both corners included),
  // against the CPU's A B; out at 64 x 64 elements (64 rows spread over it,
  // the first and last included, 64 hashed columns each plus the last), each
  // against beta D + the variant's own tmp row (downloaded) times C. The
  // exact variants must give the reference's bits in both.
  void check(Gpu& gpu, Variant v) override {
    const uint64_t n = n_, total = n * n, samples = std::min<uint64_t>(total, 4096);
    std::vector<uint64_t> at(samples);
    for (uint64_t s = 0; s < samples; ++s)
      at[s] = samples == total ? s : (s == samples - 1 ? total - 1 : bench_hash(uint32_t(s)) % total);
    const std::vector<float> tmp = download_elements<float>(gpu, *tmp_buf_, at);
    parallel_for(samples, 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t s = begin; s < end; ++s) {
        const uint64_t row = at[s] / n, col = at[s] % n;
        float sum = 0.0f;
        double magnitude = 0.0;
        for (uint64_t k = 0; k < n; ++k) {
          const float product = input_a(row * n + k) * input_b(k * n + col);
          sum += product;
          magnitude += std::fabs(product);
        }
        const float want = BENCH_ALPHA * sum;
        if (!sum_matches(v, tmp[s], want, BENCH_ALPHA * magnitude))
          mismatch(name(), v, fmt::format("tmp[{}][{}]", row, col), tmp[s], want);
      }
    });
    const std::vector<uint64_t> rows = sample_indices(n, 64);
    std::vector<uint64_t> row_elements;
    for (uint64_t row : rows)
      for (uint64_t k = 0; k < n; ++k) row_elements.push_back(row * n + k);
    const std::vector<float> tmp_rows = download_elements<float>(gpu, *tmp_buf_, row_elements);
    const uint64_t columns = std::min<uint64_t>(n, 64);
    std::vector<uint64_t> out_at;
    for (uint64_t r = 0; r < rows.size(); ++r)
      for (uint64_t s = 0; s < columns; ++s)
        out_at.push_back(rows[r] * n + (columns == n ? s : (s == columns - 1 ? n - 1 : bench_hash(uint32_t(s)) % n)));
    const std::vector<float> out = download_elements<float>(gpu, *out_buf_, out_at);
    parallel_for(out_at.size(), 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t s = begin; s < end; ++s) {
        const uint64_t r = s / columns, row = out_at[s] / n, col = out_at[s] % n;
        const float* tmp_row = &tmp_rows[r * n];
        float sum = 0.0f;
        double magnitude = 0.0;
        for (uint64_t k = 0; k < n; ++k) {
          const float product = tmp_row[k] * input_c(k * n + col);
          sum += product;
          magnitude += std::fabs(product);
        }
        const float scaled = BENCH_BETA * input_d(row * n + col), want = scaled + sum;
        if (!sum_matches(v, out[s], want, magnitude + std::fabs(scaled)))
          mismatch(name(), v, fmt::format("out[{}][{}]", row, col), out[s], want);
      }
    });
  }

 private:
  KernelSet tmp_kernel_, out_kernel_;
  uint64_t n_ = 0, capacity_ = 0;
  std::unique_ptr<BufferBase> a_buf_, b_buf_, c_buf_, d_buf_, tmp_buf_, out_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_mm2(Gpu& gpu) { return std::make_unique<Mm2>(gpu); }

}  // namespace wasmgpu::bench
