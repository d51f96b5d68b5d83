// Mandelbrot escape counts, f32 compute (bench/kernels/mandelbrot.c,
// bench/glsl/mandelbrot.comp). 8 flops per iteration.
#include <fmt/core.h>

#include <algorithm>

#include "bench_inputs.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

class Mandelbrot final : public Workload {
 public:
  explicit Mandelbrot(Gpu& gpu) : kernels_(gpu, "mandelbrot") {}
  const char* name() const override { return "mandelbrot"; }
  Unit unit() const override { return Unit::Flops; }
  uint64_t quick_size() const override { return 64; }
  uint64_t start_size() const override { return 256; }
  uint64_t max_size(Gpu& gpu) const override {
    uint64_t side = 16;
    while ((side * 2) * (side * 2) * 4 <= memory_budget(gpu) && side * 2 <= 16384) side *= 2;
    return side;
  }
  uint64_t round_size(uint64_t w) const override { return std::max<uint64_t>(16, w / 16 * 16); }
  int size_exponent() const override { return 2; }

  // The view: x in [-2, 0.5), y in [-1.25, 1.25), square pixels.
  static float step_for(uint64_t w) { return 2.5f / float(w); }
  static unsigned escape(float cx, float cy) {
    float x = 0.0f, y = 0.0f;
    unsigned k = 0;
    while (k < BENCH_MANDELBROT_ITERATIONS) {
      float xx = x * x, yy = y * y;
      if (xx + yy > 4.0f) break;
      float xy = x * y;
      x = xx - yy + cx;
      y = xy + xy + cy;
      ++k;
    }
    return k;
  }

  void setup(Gpu& gpu, uint64_t w) override {
    w_ = w;
    counts_buf_.reset();
    counts_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, w * w * 4));
    const float step = step_for(w), x0 = -2.0f, y0 = -1.25f;
    struct {
      uint64_t counts;
      uint32_t width, max_iterations;
      float x0, y0, step;
    } push{counts_buf_->device_address(), uint32_t(w), BENCH_MANDELBROT_ITERATIONS, x0, y0, step};
    kernels_.prepare({uint32_t(w / 16), uint32_t(w / 16), 1}, {16, 16, 1},
                     {*counts_buf_, uint32_t(w), BENCH_MANDELBROT_ITERATIONS, x0, y0, step}, &push, sizeof push);
    // Rows the CPU checks: all of them up to 2^18 pixels, else evenly spaced ones.
    row_stride_ = std::max<uint64_t>(1, w * w / (1 << 18));
    iterations_ = 0;
  }
  double work() const override { return 8.0 * double(iterations_); }
  std::string size_text() const override { return fmt::format("{}x{} max_iter={}", w_, w_, BENCH_MANDELBROT_ITERATIONS); }
  std::string cuda_args() const override { return fmt::format("--size {}", w_); }
  void record(VkCommandBuffer cmd, Variant v) override { kernels_.record(cmd, v); }
  void reset(Gpu&) override { fill(*counts_buf_, 0xFFFFFFFFu); }
  void check(Gpu&, Variant v) override {
    TracePhase t_down(name(), "download");
    std::vector<uint32_t> counts(w_ * w_);
    download(*counts_buf_, counts.data(), counts.size() * 4);
    t_down.end();
    TracePhase t_cmp(name(), "compare");
    const float step = step_for(w_);
    uint64_t checked = 0, wrong = 0, total = 0;
    for (uint32_t c : counts) {
      if (c > BENCH_MANDELBROT_ITERATIONS) mismatch(name(), v, "a pixel", c, BENCH_MANDELBROT_ITERATIONS);
      total += c;
    }
    for (uint64_t y = 0; y < w_; y += row_stride_)
      for (uint64_t x = 0; x < w_; ++x) {
        unsigned expected = escape(-2.0f + float(x) * step, -1.25f + float(y) * step);
        ++checked;
        if (counts[y * w_ + x] != expected) {
          // Contraction may move a pixel on the set's boundary: the plain
          // variants may differ on a few, the exact ones on none.
          if (is_exact(v)) mismatch(name(), v, fmt::format("pixel ({}, {})", x, y), counts[y * w_ + x], expected);
          ++wrong;
        }
      }
    if (wrong * 100 > checked)
      throw std::runtime_error(fmt::format("mandelbrot ({}): {} of {} checked pixels differ from the CPU", to_string(v),
                                           wrong, checked));
    if (v == Variant::GlslPrecise || iterations_ == 0) iterations_ = total;
  }

 private:
  KernelSet kernels_;
  uint64_t w_ = 0, row_stride_ = 1, iterations_ = 0;
  std::unique_ptr<runtime::Buffer> counts_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_mandelbrot(Gpu& gpu) { return std::make_unique<Mandelbrot>(gpu); }

}  // namespace wasmgpu::bench
