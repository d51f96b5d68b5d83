// 2-D five-point Jacobi stencil (bench/kernels/stencil.c, bench/glsl/stencil.comp).
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

// Element i of the input in row-major order, whatever the width.
float input(uint64_t i) { return bench_unit(uint32_t(i), 6); }

class Stencil final : public Workload {
 public:
  explicit Stencil(Gpu& gpu) : kernels_(gpu, "stencil") {}
  const char* name() const override { return "stencil"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 128; }
  uint64_t start_size() const override { return 512; }
  uint64_t max_size(Gpu& gpu) const override {
    return largest_square_size(gpu, 2, 0, 16, 65535 * 16);  // two f32 grids
  }
  uint64_t round_size(uint64_t w) const override { return std::max<uint64_t>(16, w / 16 * 16); }
  int size_exponent() const override { return 2; }

  void setup(Gpu& gpu, uint64_t w, uint64_t capacity) override {
    w_ = w;
    if (capacity > capacity_) {
      in_buf_.reset(), out_buf_.reset();
      in_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      out_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for {}x{}", capacity, capacity));
      upload_generated<float>(gpu, *in_buf_, capacity * capacity, input);
      capacity_ = capacity;
    }
    struct {
      uint64_t in, out;
      uint32_t w, h;
    } push{twin_address(gpu, *in_buf_), twin_address(gpu, *out_buf_), uint32_t(w), uint32_t(w)};
    kernels_.prepare({uint32_t(w / 16), uint32_t(w / 16), 1}, {16, 16, 1},
                     {*in_buf_, *out_buf_, uint32_t(w), uint32_t(w)}, &push, sizeof push);
  }
  double work() const override { return 8.0 * double(w_) * double(w_); }
  std::string size_text() const override { return fmt::format("{}x{}", w_, w_); }
  std::string cuda_args() const override { return fmt::format("--size {}", w_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  std::string no_default_reason() const override {
    return "a 2-D grid (global_id(0) and global_id(1)): kernel(n, ...) is 1-D";
  }
  void reset(Gpu& gpu) override { fill(gpu, *out_buf_, 0xFFFFFFFFu); }
  // Every point; each chunk recomputes the inputs it reads (its points and a
  // row either side) once.
  void check(Gpu& gpu, Variant v) override {
    const uint64_t w = w_, total = w * w;
    check_elements<float>(gpu, *out_buf_, total, [&](uint64_t first, const float* out, uint64_t count) {
      const uint64_t lo = first >= w ? first - w : 0, hi = std::min(total, first + count + w);
      std::vector<float> in(hi - lo);
      for (uint64_t i = lo; i < hi; ++i) in[i - lo] = input(i);
      auto at = [&](uint64_t i) { return in[i - lo]; };
      uint64_t y = first / w, x = first % w;
      for (uint64_t k = 0; k < count; ++k) {
        const uint64_t i = first + k;
        float expected = at(i);
        if (x > 0 && y > 0 && x + 1 < w && y + 1 < w)
          expected = 0.25f * (at(i - w) + at(i + w) + at(i - 1) + at(i + 1));
        bool ok = is_exact(v) ? std::memcmp(&out[k], &expected, 4) == 0 : close(out[k], expected, 1e-6, 1.0);
        if (!ok) mismatch(name(), v, fmt::format("({}, {})", x, y), out[k], expected);
        if (++x == w) x = 0, ++y;
      }
    });
  }

#if WASMGPU_BENCH_NATIVE
  std::unique_ptr<NativeTwin> native_twin() override {
    struct Arrays {
      std::vector<float> in, out;
    };
    const uint64_t w = w_;
    auto d = std::make_shared<Arrays>(Arrays{generated<float>(w * w, input), std::vector<float>(w * w)});
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [d, w] { native_stencil(d->in.data(), d->out.data(), unsigned(w), unsigned(w)); };
    twin->check = [this, d, w](Gpu& gpu, Variant v) {
      check_native_bytes<float>(gpu, *out_buf_, d->out.data(), w * w, name(), v, "out");
    };
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t w_ = 0, capacity_ = 0;
  std::unique_ptr<BufferBase> in_buf_, out_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_stencil(Gpu& gpu) { return std::make_unique<Stencil>(gpu); }

}  // namespace wasmgpu::bench
