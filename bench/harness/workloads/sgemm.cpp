// SGEMM with shared-memory tiles and register blocking (bench/kernels/sgemm.c,
// bench/glsl/sgemm.comp). 2 n^3 flops.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/parallel_for.h"
#include "harness/staging.h"
#include "harness/trace.h"
#include "harness/native.h"
#include "harness/workloads/workloads.h"

#if WASMGPU_BENCH_NATIVE
#include "native_twins.h"
#endif
#if WASMGPU_BENCH_OPENBLAS
#include <cblas.h>
#endif

namespace wasmgpu::bench {
namespace {

// Element i of A and B in row-major order (for any n: a prefix of the
// inputs for a larger n is the input for a smaller one).
float input_a(uint64_t i) { return bench_unit(uint32_t(i), 4); }
float input_b(uint64_t i) { return bench_unit(uint32_t(i), 5); }

class Sgemm final : public Workload {
 public:
  explicit Sgemm(Gpu& gpu) : kernels_(gpu, "sgemm") {}
  const char* name() const override { return "sgemm"; }
  Unit unit() const override { return Unit::Flops; }
  uint64_t quick_size() const override { return 128; }
  uint64_t start_size() const override { return 256; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 3, 0, 128, 16384); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(128, n / 128 * 128); }
  int size_exponent() const override { return 3; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      a_buf_.reset(), b_buf_.reset(), c_buf_.reset();
      const uint64_t elements = capacity * capacity;
      a_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, elements * 4));
      b_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, elements * 4));
      c_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, elements * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *a_buf_, elements, input_a);
      upload_generated<float>(gpu, *b_buf_, elements, input_b);
      capacity_ = capacity;
    }
    struct {
      uint64_t a, b, c;
      uint32_t n;
    } push{twin_address(gpu, *a_buf_), twin_address(gpu, *b_buf_), twin_address(gpu, *c_buf_), uint32_t(n)};
    kernels_.prepare({uint32_t(n / 128), uint32_t(n / 128), 1}, {256, 1, 1}, {*a_buf_, *b_buf_, *c_buf_, uint32_t(n)},
                     &push, sizeof push);
  }
  double work() const override { return 2.0 * double(n_) * double(n_) * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  std::string skip_reason(Gpu& gpu, Variant v) const override {
    if (v == Variant::WasmExact && gpu.info().type == "CPU" && !gpu.is_cpu())
      return "exact-mode SGEMM not run on a CPU device: llvmpipe spends over 5 minutes compiling its pipeline "
             "(64 unrolled exact multiply-adds per k step)";
    return {};
  }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  std::string no_default_reason() const override {
    return "its workgroups of 256 share tiles in workgroup memory (local and workgroup ids, barriers): a user gives "
           "the size";
  }
  void reset(Gpu& gpu) override { fill(gpu, *c_buf_, 0xFFFFFFFFu); }
  void check(Gpu& gpu, Variant v) override {
    // Every element of small results; else 4096 spread over C, corners included.
    const uint64_t n = n_, total = n * n, samples = std::min<uint64_t>(total, 4096);
    std::vector<uint64_t> at(samples);
    for (uint64_t s = 0; s < samples; ++s)
      at[s] = samples == total ? s : (s == samples - 1 ? total - 1 : bench_hash(uint32_t(s)) % total);
    const std::vector<float> c = download_elements<float>(gpu, *c_buf_, at);
    parallel_for(samples, 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t s = begin; s < end; ++s) {
        const uint64_t row = at[s] / n, col = at[s] % n;
        float sum = 0.0f;
        double magnitude = 0.0;
        for (uint64_t k = 0; k < n; ++k) {
          float product = input_a(row * n + k) * input_b(k * n + col);
          sum += product;
          magnitude += std::fabs(product);
        }
        if (!sum_matches(v, c[s], sum, magnitude)) mismatch(name(), v, fmt::format("C[{}][{}]", row, col), c[s], sum);
      }
    });
  }

#if WASMGPU_BENCH_NATIVE
  // Every element of C, byte for byte (both sum in ascending k, rounding each
  // product and sum); OpenBLAS (which reorders and fuses) within 1e-5 x n of
  // the twin: each product is under 1 in magnitude.
  std::unique_ptr<NativeTwin> native_twin() override {
    struct Arrays {
      std::vector<float> a, b, c, blas;
    };
    const uint64_t n = n_;
    auto d = std::make_shared<Arrays>();
    d->a = generated<float>(n * n, input_a);
    d->b = generated<float>(n * n, input_b);
    d->c.resize(n * n);
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [d, n] { native_sgemm(d->a.data(), d->b.data(), d->c.data(), unsigned(n)); };
    twin->check = [this, d, n](Gpu& gpu, Variant v) {
      check_native_bytes<float>(gpu, *c_buf_, d->c.data(), n * n, name(), v, "C");
    };
    twin->library = "openblas";
#if WASMGPU_BENCH_OPENBLAS
    d->blas.resize(n * n);
    twin->library_run = [d, n] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n), 1.0f, d->a.data(), int(n),
                  d->b.data(), int(n), 0.0f, d->blas.data(), int(n));
    };
    twin->library_check = [d, n] {
      for (uint64_t i = 0; i < n * n; ++i)
        if (!(std::fabs(d->blas[i] - d->c[i]) <= 1e-5 * double(n)))
          throw std::runtime_error(
              fmt::format("sgemm: OpenBLAS's C[{}][{}] = {:.9g}, the native twin's {:.9g}: "
                          "more than 1e-5 x n apart",
                          i / n, i % n, d->blas[i], d->c[i]));
    };
#endif
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0;
  std::unique_ptr<BufferBase> a_buf_, b_buf_, c_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_sgemm(Gpu& gpu) { return std::make_unique<Sgemm>(gpu); }

}  // namespace wasmgpu::bench
