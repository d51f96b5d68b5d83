// PolyBench's fdtd-2d (bench/kernels/fdtd_2d.c, bench/glsl/fdtd_2d_e.comp and
// fdtd_2d_h.comp): one run is BENCH_FDTD_STEPS time steps t = 0, 1, ... of two
// launches each, the electric fields ex and ey from hz, then hz from them, in
// place, a barrier after each launch.
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "bench_inputs.h"
#include "harness/generated_input.h"
#include "harness/parallel_for.h"
#include "harness/staging.h"
#include "harness/trace.h"
#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {
namespace {

// The initial fields, element i in row-major order (for any n).
float input_ex(uint64_t i) { return bench_unit(uint32_t(i), 22); }
float input_ey(uint64_t i) { return bench_unit(uint32_t(i), 23); }
float input_hz(uint64_t i) { return bench_unit(uint32_t(i), 24); }

class Fdtd2d final : public Workload {
 public:
  explicit Fdtd2d(Gpu& gpu) : e_(gpu, "fdtd_2d", "fdtd_2d_e"), h_(gpu, "fdtd_2d", "fdtd_2d_h") {}
  const char* name() const override { return "fdtd_2d"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 64; }
  uint64_t start_size() const override { return 256; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 3, 0, 16, 65535 * 16); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(16, n / 16 * 16); }
  int size_exponent() const override { return 2; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      ex_buf_.reset(), ey_buf_.reset(), hz_buf_.reset();
      ex_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      ey_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      hz_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      capacity_ = capacity;
      initialize(gpu, capacity);
    }
    const std::array<uint32_t, 3> groups = {uint32_t(n / 16), uint32_t(n / 16), 1}, size = {16, 16, 1};
    struct {
      uint64_t ex, ey, hz;
      uint32_t n, t;
    } e{twin_address(gpu, *ex_buf_), twin_address(gpu, *ey_buf_), twin_address(gpu, *hz_buf_), uint32_t(n), 0};
    e_.prepare(groups, size, {*ex_buf_, *ey_buf_, *hz_buf_, uint32_t(n), 0u}, &e, sizeof e);
    for (uint32_t t = 1; t < BENCH_FDTD_STEPS; ++t) {
      e.t = t;
      e_.add_launch(groups, size, {*ex_buf_, *ey_buf_, *hz_buf_, uint32_t(n), t}, &e, sizeof e);
    }
    struct {
      uint64_t ex, ey, hz;
      uint32_t n;
    } h{twin_address(gpu, *ex_buf_), twin_address(gpu, *ey_buf_), twin_address(gpu, *hz_buf_), uint32_t(n)};
    h_.prepare(groups, size, {*ex_buf_, *ey_buf_, *hz_buf_, uint32_t(n)}, &h, sizeof h);
  }
  // Per point and step: the e launch reads ex, ey and hz and writes ex and
  // ey, the h launch reads the three and writes hz (the neighbours' reads
  // come from caches): 36 bytes.
  double work() const override { return BENCH_FDTD_STEPS * 36.0 * double(n_) * double(n_); }
  std::string size_text() const override { return fmt::format("{}x{} steps={}", n_, n_, BENCH_FDTD_STEPS); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override {
    for (uint32_t t = 0; t < BENCH_FDTD_STEPS; ++t) {
      if (t) commands.barrier();
      e_.record(commands, v, t);
      commands.barrier();
      h_.record(commands, v);
    }
  }
  KernelSet& kernels() override { return e_; }
  std::string no_default_reason() const override {
    return "a 2-D grid (global_id(0) and global_id(1)): kernel(n, ...) is 1-D";
  }
  // The runs change the fields in place: a checked run starts from the inputs.
  void reset(Gpu& gpu) override { initialize(gpu, n_); }
  // Every point of the three fields.
  void check(Gpu& gpu, Variant v) override {
    if (reference_n_ != n_) reference();
    const uint64_t n = n_;
    const char* names[] = {"ex", "ey", "hz"};
    const std::vector<float>* wants[] = {&ex_, &ey_, &hz_};
    const BufferBase* buffers[] = {ex_buf_.get(), ey_buf_.get(), hz_buf_.get()};
    for (int f = 0; f < 3; ++f) {
      const std::vector<float>& want = *wants[f];
      check_elements<float>(gpu, *buffers[f], n * n, [&](uint64_t first, const float* out, uint64_t count) {
        for (uint64_t k = 0; k < count; ++k) {
          const float expected = want[first + k];
          bool ok = is_exact(v) ? std::memcmp(&out[k], &expected, 4) == 0 : close(out[k], expected, 1e-5, 1.0);
          if (!ok)
            mismatch(name(), v, fmt::format("{}[{}][{}]", names[f], (first + k) / n, (first + k) % n), out[k],
                     expected);
        }
      });
    }
  }

 private:
  KernelSet e_, h_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  std::unique_ptr<BufferBase> ex_buf_, ey_buf_, hz_buf_;
  std::vector<float> ex_, ey_, hz_;  // the reference's fields after a run

  // The inputs of the n x n problem (a prefix of a larger one's).
  void initialize(Gpu& gpu, uint64_t n) {
    TracePhase phase(name(), fmt::format("generate and upload the fields for {}x{}", n, n));
    upload_generated<float>(gpu, *ex_buf_, n * n, input_ex);
    upload_generated<float>(gpu, *ey_buf_, n * n, input_ey);
    upload_generated<float>(gpu, *hz_buf_, n * n, input_hz);
  }
  // PolyBench's loops, rows in parallel; each launch's loop ends before the
  // next begins, as the barriers order them on the device.
  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for {}x{}", n_, n_));
    const uint64_t n = n_;
    ex_.resize(n * n), ey_.resize(n * n), hz_.resize(n * n);
    parallel_for(n * n, 1 << 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) ex_[i] = input_ex(i), ey_[i] = input_ey(i), hz_[i] = input_hz(i);
    });
    for (uint32_t t = 0; t < BENCH_FDTD_STEPS; ++t) {
      parallel_for(n, 16, [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i)
          for (uint64_t j = 0; j < n; ++j) {
            const uint64_t at = i * n + j;
            ey_[at] = i == 0 ? float(t) : ey_[at] - 0.5f * (hz_[at] - hz_[at - n]);
            if (j > 0) ex_[at] = ex_[at] - 0.5f * (hz_[at] - hz_[at - 1]);
          }
      });
      parallel_for(n - 1, 16, [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i)
          for (uint64_t j = 0; j + 1 < n; ++j) {
            const uint64_t at = i * n + j;
            hz_[at] = hz_[at] - 0.7f * (ex_[at + 1] - ex_[at] + ey_[at + n] - ey_[at]);
          }
      });
    }
    reference_n_ = n;
  }
};

}  // namespace

std::unique_ptr<Workload> make_fdtd_2d(Gpu& gpu) { return std::make_unique<Fdtd2d>(gpu); }

}  // namespace wasmgpu::bench
