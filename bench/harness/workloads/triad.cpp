// STREAM triad (bench/kernels/triad.c, bench/glsl/triad.comp).
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/staging.h"
#include "harness/trace.h"
#include "harness/native.h"
#include "harness/workloads/workloads.h"

#if WASMGPU_BENCH_NATIVE
#include "native_twins.h"
#endif

namespace wasmgpu::bench {
namespace {

float input_b(uint64_t i) { return bench_unit(uint32_t(i), 1); }
float input_c(uint64_t i) { return bench_unit(uint32_t(i), 2); }

class Triad final : public Workload {
 public:
  explicit Triad(Gpu& gpu) : kernels_(gpu, "triad") {}
  const char* name() const override { return "triad"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 1 << 16; }
  uint64_t start_size() const override { return 1 << 20; }
  uint64_t max_size(Gpu& gpu) const override { return std::min(memory_budget(gpu) / 12, max_invocations_1d(gpu, 256)); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      a_buf_.reset(), b_buf_.reset(), c_buf_.reset();
      a_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      b_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      c_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *b_buf_, capacity, input_b);
      upload_generated<float>(gpu, *c_buf_, capacity, input_c);
      capacity_ = capacity;
    }
    struct {
      uint64_t a, b, c;
      float s;
      uint32_t n;
    } push{twin_address(gpu, *a_buf_), twin_address(gpu, *b_buf_), twin_address(gpu, *c_buf_), BENCH_TRIAD_SCALAR,
           uint32_t(n)};
    kernels_.prepare({uint32_t(n / 256), 1, 1}, {256, 1, 1},
                     {*a_buf_, *b_buf_, *c_buf_, BENCH_TRIAD_SCALAR, uint32_t(n)}, &push, sizeof push);
    kernels_.prepare_default(uint32_t(n), {*a_buf_, *b_buf_, *c_buf_, BENCH_TRIAD_SCALAR, uint32_t(n)});
  }
  double work() const override { return 12.0 * double(n_); }
  std::string size_text() const override { return fmt::format("n={}", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  void reset(Gpu& gpu) override { fill(gpu, *a_buf_, 0xFFFFFFFFu); }
  // Every element, the inputs recomputed from their index.
  void check(Gpu& gpu, Variant v) override {
    check_elements<float>(gpu, *a_buf_, n_, [&](uint64_t first, const float* a, uint64_t count) {
      for (uint64_t k = 0; k < count; ++k) {
        const uint64_t i = first + k;
        float product = BENCH_TRIAD_SCALAR * input_c(i);
        float expected = input_b(i) + product;
        bool ok = is_exact(v) ? std::memcmp(&a[k], &expected, 4) == 0 : close(a[k], expected, 1e-6, 1.0);
        if (!ok) mismatch(name(), v, fmt::format("a[{}]", i), a[k], expected);
      }
    });
  }

#if WASMGPU_BENCH_NATIVE
  std::unique_ptr<NativeTwin> native_twin() override {
    struct Arrays {
      std::vector<float> a, b, c;
    };
    const uint64_t n = n_;
    auto d = std::make_shared<Arrays>(
        Arrays{std::vector<float>(n), generated<float>(n, input_b), generated<float>(n, input_c)});
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [d, n] { native_triad(d->a.data(), d->b.data(), d->c.data(), BENCH_TRIAD_SCALAR, n); };
    twin->check = [this, d, n](Gpu& gpu, Variant v) {
      check_native_bytes<float>(gpu, *a_buf_, d->a.data(), n, name(), v, "a");
    };
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0;
  std::unique_ptr<BufferBase> a_buf_, b_buf_, c_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_triad(Gpu& gpu) { return std::make_unique<Triad>(gpu); }

}  // namespace wasmgpu::bench
