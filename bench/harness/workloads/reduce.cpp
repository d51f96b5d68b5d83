// Sum reduction, first level (bench/kernels/reduce.c, bench/glsl/reduce.comp).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/parallel_for.h"
#include "harness/trace.h"
#include "harness/native.h"
#include "harness/workloads/workloads.h"

#if WASMGPU_BENCH_NATIVE
#include "native_twins.h"
#endif

namespace wasmgpu::bench {
namespace {

float input(uint64_t i) { return bench_unit(uint32_t(i), 3); }

class Reduce final : public Workload {
 public:
  explicit Reduce(Gpu& gpu) : kernels_(gpu, "reduce") {}
  const char* name() const override { return "reduce"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 1 << 16; }
  uint64_t start_size() const override { return 1 << 20; }
  uint64_t max_size(Gpu& gpu) const override { return std::min<uint64_t>(memory_budget(gpu) / 4, 0xFFFF0000u); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }
  // The grid: enough workgroups to fill a large GPU, each summing at least 64
  // elements per invocation.
  static constexpr uint32_t kMaxGroups = 1024;
  static uint32_t groups_for(uint64_t n) { return uint32_t(std::clamp<uint64_t>(n / (256 * 64), 1, kMaxGroups)); }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    groups_ = groups_for(n);
    if (capacity > capacity_) {
      in_buf_.reset(), partial_buf_.reset();
      in_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 4));
      partial_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, kMaxGroups * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<float>(gpu, *in_buf_, capacity, input);
      capacity_ = capacity;
    }
    struct {
      uint64_t in, partial;
      uint32_t n;
    } push{twin_address(gpu, *in_buf_), twin_address(gpu, *partial_buf_), uint32_t(n)};
    kernels_.prepare({groups_, 1, 1}, {256, 1, 1}, {*in_buf_, uint32_t(n), *partial_buf_}, &push, sizeof push);
  }
  double work() const override { return 4.0 * double(n_); }
  std::string size_text() const override { return fmt::format("n={} groups={}", n_, groups_); }
  std::string cuda_args() const override { return fmt::format("--size {} --groups {}", n_, groups_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  std::string no_default_reason() const override {
    return "its workgroups of 256 share a tree in workgroup memory (local and workgroup ids, barriers): a user gives "
           "the size";
  }
  void reset(Gpu& gpu) override { fill(gpu, *partial_buf_, 0xFFFFFFFFu); }
  void check(Gpu&, Variant v) override {
    if (reference_n_ != n_) reference();
    std::vector<float> partial(groups_);
    download(*partial_buf_, partial.data(), groups_ * 4);
    for (uint32_t g = 0; g < groups_; ++g) {
      if (!sum_matches(v, partial[g], expected_[g], scale_[g]))
        mismatch(name(), v, fmt::format("partial[{}]", g), partial[g], expected_[g]);
    }
  }

#if WASMGPU_BENCH_NATIVE
  // One total over all cores: checked against the sum of the wasm kernel's
  // partial sums within 1e-5 of the sum of |x| (+ 1e-6), the bound the
  // reordered variants get (the two add in different orders).
  std::unique_ptr<NativeTwin> native_twin() override {
    struct Arrays {
      std::vector<float> in;
      float sum = 0;
      double magnitude = 0;
    };
    const uint64_t n = n_;
    auto d = std::make_shared<Arrays>();
    d->in = generated<float>(n, input);
    for (float x : d->in) d->magnitude += std::fabs(x);
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [d, n] { d->sum = native_reduce(d->in.data(), n); };
    twin->check = [this, d](Gpu&, Variant v) {
      std::vector<float> partial(groups_);
      download(*partial_buf_, partial.data(), groups_ * 4);
      double wasm = 0;
      for (float p : partial) wasm += p;
      if (std::fabs(double(d->sum) - wasm) > 1e-5 * d->magnitude + 1e-6)
        throw std::runtime_error(
            fmt::format("reduce: the native twin's sum {:.9g} differs from the wasm kernel's "
                        "partial sums' {:.9g} ({}) by more than 1e-5 x {:.6g} + 1e-6",
                        d->sum, wasm, to_string(v), d->magnitude));
    };
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  uint32_t groups_ = 1;
  std::vector<float> expected_;
  std::vector<double> scale_;
  std::unique_ptr<BufferBase> in_buf_, partial_buf_;

  // Each invocation's grid-stride sum (in index order, as the kernel adds),
  // then the tree; one workgroup per parallel_for chunk, the inputs
  // recomputed from their index.
  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for n={}", n_));
    expected_.assign(groups_, 0.0f);
    scale_.assign(groups_, 0.0);
    const uint64_t n = n_, stride = uint64_t(groups_) * 256;
    parallel_for(groups_, 1, [&](uint64_t begin, uint64_t end) {
      for (uint64_t g = begin; g < end; ++g) {
        float sums[256] = {};
        double magnitude = 0.0;
        for (uint64_t row = g * 256; row < n; row += stride)
          for (uint64_t l = 0; l < 256 && row + l < n; ++l) {
            const float x = input(row + l);
            sums[l] += x;
            magnitude += std::fabs(x);
          }
        for (uint32_t half = 128; half > 0; half >>= 1)
          for (uint32_t l = 0; l < half; ++l) sums[l] += sums[l + half];
        expected_[g] = sums[0];
        scale_[g] = magnitude;
      }
    });
    reference_n_ = n_;
  }
};

}  // namespace

std::unique_ptr<Workload> make_reduce(Gpu& gpu) { return std::make_unique<Reduce>(gpu); }

}  // namespace wasmgpu::bench
