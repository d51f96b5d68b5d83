// 2-D five-point Jacobi stencil (bench/kernels/stencil.c, bench/glsl/stencil.comp).
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "bench_inputs.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

class Stencil final : public Workload {
 public:
  explicit Stencil(Gpu& gpu) : kernels_(gpu, "stencil") {}
  const char* name() const override { return "stencil"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 128; }
  uint64_t start_size() const override { return 512; }
  uint64_t max_size(Gpu& gpu) const override {
    uint64_t side = 16;
    while ((side + 16) * (side + 16) * 8 <= memory_budget(gpu) && side + 16 <= 65535 * 16) side += 16;
    return side;
  }
  uint64_t round_size(uint64_t w) const override { return std::max<uint64_t>(16, w / 16 * 16); }
  int size_exponent() const override { return 2; }

  void setup(Gpu& gpu, uint64_t w) override {
    w_ = w;
    TracePhase t_gen(name(), "generate inputs");
    in_.resize(w * w);
    for (uint32_t i = 0; i < w * w; ++i) in_[i] = bench_unit(i, 6);
    t_gen.end();
    TracePhase t_up(name(), "allocate and upload");
    in_buf_.reset(), out_buf_.reset();
    in_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, w * w * 4));
    out_buf_ = std::make_unique<runtime::Buffer>(make_buffer(gpu, w * w * 4));
    upload(*in_buf_, in_.data(), w * w * 4);
    struct {
      uint64_t in, out;
      uint32_t w, h;
    } push{in_buf_->device_address(), out_buf_->device_address(), uint32_t(w), uint32_t(w)};
    kernels_.prepare({uint32_t(w / 16), uint32_t(w / 16), 1}, {16, 16, 1},
                     {*in_buf_, *out_buf_, uint32_t(w), uint32_t(w)}, &push, sizeof push);
  }
  double work() const override { return 8.0 * double(w_) * double(w_); }
  std::string size_text() const override { return fmt::format("{}x{}", w_, w_); }
  std::string cuda_args() const override { return fmt::format("--size {}", w_); }
  void record(VkCommandBuffer cmd, Variant v) override { kernels_.record(cmd, v); }
  void reset(Gpu&) override { fill(*out_buf_, 0xFFFFFFFFu); }
  void check(Gpu&, Variant v) override {
    TracePhase t_down(name(), "download");
    std::vector<float> out(w_ * w_);
    download(*out_buf_, out.data(), out.size() * 4);
    t_down.end();
    TracePhase t_cmp(name(), "compare");
    const uint64_t w = w_;
    for (uint64_t y = 0; y < w; ++y)
      for (uint64_t x = 0; x < w; ++x) {
        const uint64_t at = y * w + x;
        float expected = in_[at];
        if (x > 0 && y > 0 && x + 1 < w && y + 1 < w)
          expected = 0.25f * (in_[at - w] + in_[at + w] + in_[at - 1] + in_[at + 1]);
        bool ok = is_exact(v) ? std::memcmp(&out[at], &expected, 4) == 0 : close(out[at], expected, 1e-6, 1.0);
        if (!ok) mismatch(name(), v, fmt::format("({}, {})", x, y), out[at], expected);
      }
  }

 private:
  KernelSet kernels_;
  uint64_t w_ = 0;
  std::vector<float> in_;
  std::unique_ptr<runtime::Buffer> in_buf_, out_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_stencil(Gpu& gpu) { return std::make_unique<Stencil>(gpu); }

}  // namespace wasmgpu::bench
