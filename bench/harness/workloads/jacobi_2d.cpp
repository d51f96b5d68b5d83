// PolyBench's jacobi-2d, time-stepped on two arrays (bench/kernels/jacobi_2d.c,
// bench/glsl/jacobi_2d.comp): one run is BENCH_JACOBI_STEPS time steps of two
// sweeps each, A into B and B into A, in place, a barrier after each sweep.
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

// The initial A and B, element i in row-major order (for any n).
float input_a(uint64_t i) { return bench_unit(uint32_t(i), 8); }
float input_b(uint64_t i) { return bench_unit(uint32_t(i), 9); }

// One sweep on the CPU, in the kernel's order of additions.
void sweep(const std::vector<float>& in, std::vector<float>& out, uint64_t n) {
  parallel_for(n - 2, 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin + 1; i < end + 1; ++i)
      for (uint64_t j = 1; j + 1 < n; ++j) {
        const uint64_t at = i * n + j;
        out[at] = 0.2f * (in[at] + in[at - 1] + in[at + 1] + in[at + n] + in[at - n]);
      }
  });
}

class Jacobi2d final : public Workload {
 public:
  explicit Jacobi2d(Gpu& gpu) : kernels_(gpu, "jacobi_2d") {}
  const char* name() const override { return "jacobi_2d"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 64; }
  uint64_t start_size() const override { return 256; }
  uint64_t max_size(Gpu& gpu) const override { return largest_square_size(gpu, 2, 0, 16, 65535 * 16); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(16, n / 16 * 16); }
  int size_exponent() const override { return 2; }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      a_buf_.reset(), b_buf_.reset();
      a_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      b_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * capacity * 4));
      capacity_ = capacity;
      initialize(gpu, capacity);
    }
    struct {
      uint64_t in, out;
      uint32_t n;
    } ab{twin_address(gpu, *a_buf_), twin_address(gpu, *b_buf_), uint32_t(n)},
        ba{twin_address(gpu, *b_buf_), twin_address(gpu, *a_buf_), uint32_t(n)};
    const std::array<uint32_t, 3> groups = {uint32_t(n / 16), uint32_t(n / 16), 1}, size = {16, 16, 1};
    // Launch 0 sweeps A into B, launch 1 B into A.
    kernels_.prepare(groups, size, {*a_buf_, *b_buf_, uint32_t(n)}, &ab, sizeof ab);
    kernels_.add_launch(groups, size, {*b_buf_, *a_buf_, uint32_t(n)}, &ba, sizeof ba);
  }
  // Bytes of the interior points: each sweep reads and writes each once.
  double work() const override { return 2.0 * BENCH_JACOBI_STEPS * 8.0 * double(n_ - 2) * double(n_ - 2); }
  std::string size_text() const override { return fmt::format("{}x{} steps={}", n_, n_, BENCH_JACOBI_STEPS); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override {
    for (unsigned t = 0; t < BENCH_JACOBI_STEPS; ++t) {
      if (t) commands.barrier();
      kernels_.record(commands, v, 0);
      commands.barrier();
      kernels_.record(commands, v, 1);
    }
  }
  KernelSet& kernels() override { return kernels_; }
  std::string no_default_reason() const override {
    return "a 2-D grid (global_id(0) and global_id(1)): kernel(n, ...) is 1-D";
  }
  // The runs change A and B in place: a checked run starts from the inputs.
  void reset(Gpu& gpu) override { initialize(gpu, n_); }
  // Every point of A and B.
  void check(Gpu& gpu, Variant v) override {
    if (reference_n_ != n_) reference();
    const uint64_t n = n_;
    for (int which = 0; which < 2; ++which) {
      const std::vector<float>& want = which ? b_ : a_;
      check_elements<float>(
          gpu, which ? *b_buf_ : *a_buf_, n * n, [&](uint64_t first, const float* out, uint64_t count) {
            for (uint64_t k = 0; k < count; ++k) {
              const float expected = want[first + k];
              bool ok = is_exact(v) ? std::memcmp(&out[k], &expected, 4) == 0 : close(out[k], expected, 1e-5, 1.0);
              if (!ok)
                mismatch(name(), v, fmt::format("{}[{}][{}]", which ? "B" : "A", (first + k) / n, (first + k) % n),
                         out[k], expected);
            }
          });
    }
  }

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  std::unique_ptr<BufferBase> a_buf_, b_buf_;
  std::vector<float> a_, b_;  // the reference's A and B after a run

  // The inputs of the n x n problem (a prefix of a larger one's).
  void initialize(Gpu& gpu, uint64_t n) {
    TracePhase phase(name(), fmt::format("generate and upload A and B for {}x{}", n, n));
    upload_generated<float>(gpu, *a_buf_, n * n, input_a);
    upload_generated<float>(gpu, *b_buf_, n * n, input_b);
  }
  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for {}x{}", n_, n_));
    const uint64_t n = n_;
    a_.resize(n * n), b_.resize(n * n);
    parallel_for(n * n, 1 << 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) a_[i] = input_a(i), b_[i] = input_b(i);
    });
    for (unsigned t = 0; t < BENCH_JACOBI_STEPS; ++t) sweep(a_, b_, n), sweep(b_, a_, n);
    reference_n_ = n;
  }
};

}  // namespace

std::unique_ptr<Workload> make_jacobi_2d(Gpu& gpu) { return std::make_unique<Jacobi2d>(gpu); }

}  // namespace wasmgpu::bench
