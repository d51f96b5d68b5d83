// Mandelbrot escape counts, f32 compute (bench/kernels/mandelbrot.c,
// bench/glsl/mandelbrot.comp). 8 flops per iteration.
#include <fmt/core.h>

#include <algorithm>
#include <atomic>

#include "bench_inputs.h"
#include "harness/staging.h"
#include "harness/native.h"
#include "harness/workloads/workloads.h"

#if WASMGPU_BENCH_NATIVE
#include "native_twins.h"
#endif

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

  void setup(Gpu& gpu, uint64_t w, uint64_t capacity) override {
    w_ = w;
    if (capacity > capacity_) {
      counts_buf_.reset();
      counts_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      capacity_ = capacity;
    }
    const float step = step_for(w), x0 = -2.0f, y0 = -1.25f;
    struct {
      uint64_t counts;
      uint32_t width, max_iterations;
      float x0, y0, step;
    } push{twin_address(gpu, *counts_buf_), uint32_t(w), BENCH_MANDELBROT_ITERATIONS, x0, y0, step};
    kernels_.prepare({uint32_t(w / 16), uint32_t(w / 16), 1}, {16, 16, 1},
                     {*counts_buf_, uint32_t(w), BENCH_MANDELBROT_ITERATIONS, x0, y0, step}, &push, sizeof push);
    // Rows the CPU checks: all of them up to 2^18 pixels, else evenly spaced
    // ones and the last.
    row_stride_ = std::max<uint64_t>(1, w * w / (1 << 18));
    iterations_ = 0;
  }
  double work() const override { return 8.0 * double(iterations_); }
  std::string size_text() const override {
    return fmt::format("{}x{} max_iter={}", w_, w_, BENCH_MANDELBROT_ITERATIONS);
  }
  std::string cuda_args() const override { return fmt::format("--size {}", w_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  std::string no_default_reason() const override {
    return "a 2-D grid (global_id(0) and global_id(1)): kernel(n, ...) is 1-D";
  }
  void reset(Gpu& gpu) override { fill(gpu, *counts_buf_, 0xFFFFFFFFu); }
  // Every pixel is bounded and counted (the work); the checked rows are
  // compared with the CPU.
  void check(Gpu& gpu, Variant v) override {
    const uint64_t w = w_;
    const float step = step_for(w);
    std::atomic<uint64_t> checked{0}, wrong{0}, total{0};
    check_elements<uint32_t>(gpu, *counts_buf_, w * w, [&](uint64_t first, const uint32_t* counts, uint64_t count) {
      uint64_t my_checked = 0, my_wrong = 0, my_total = 0;
      for (uint64_t k = 0; k < count; ++k) {
        const uint32_t c = counts[k];
        if (c > BENCH_MANDELBROT_ITERATIONS)
          mismatch(name(), v, fmt::format("pixel {}", first + k), c, BENCH_MANDELBROT_ITERATIONS);
        my_total += c;
      }
      // The checked rows within [first, first + count).
      for (uint64_t y = first / w; y * w < first + count; ++y) {
        if (y % row_stride_ != 0 && y != w - 1) continue;
        const uint64_t x_begin = std::max(first, y * w) - y * w, x_end = std::min(first + count, (y + 1) * w) - y * w;
        for (uint64_t x = x_begin; x < x_end; ++x) {
          const uint32_t c = counts[y * w + x - first];
          unsigned expected = escape(-2.0f + float(x) * step, -1.25f + float(y) * step);
          ++my_checked;
          if (c != expected) {
            // Contraction may move a pixel on the set's boundary: the plain
            // variants may differ on a few, the exact ones on none.
            if (is_exact(v)) mismatch(name(), v, fmt::format("pixel ({}, {})", x, y), c, expected);
            ++my_wrong;
          }
        }
      }
      checked += my_checked, wrong += my_wrong, total += my_total;
    });
    if (wrong * 100 > checked)
      throw std::runtime_error(fmt::format("mandelbrot ({}): {} of {} checked pixels differ from the CPU", to_string(v),
                                           wrong.load(), checked.load()));
    if (v == Variant::GlslPrecise || iterations_ == 0) iterations_ = total;
  }

#if WASMGPU_BENCH_NATIVE
  // Every pixel's count, byte for byte (exact mode's floats are the C ones).
  std::unique_ptr<NativeTwin> native_twin() override {
    const uint64_t w = w_;
    auto counts = std::make_shared<std::vector<uint32_t>>(w * w);
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [counts, w] {
      native_mandelbrot(counts->data(), unsigned(w), unsigned(w), BENCH_MANDELBROT_ITERATIONS, -2.0f, -1.25f,
                        step_for(w));
    };
    twin->check = [this, counts, w](Gpu& gpu, Variant v) {
      check_native_bytes<uint32_t>(gpu, *counts_buf_, counts->data(), w * w, name(), v, "counts");
    };
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t w_ = 0, capacity_ = 0, row_stride_ = 1, iterations_ = 0;
  std::unique_ptr<BufferBase> counts_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_mandelbrot(Gpu& gpu) { return std::make_unique<Mandelbrot>(gpu); }

}  // namespace wasmgpu::bench
