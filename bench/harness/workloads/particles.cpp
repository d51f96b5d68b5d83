// An array of 32-byte structs (bench/kernels/particles.c, bench/glsl/particles.comp).
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
#include "particle_inputs.h"
#include "particles.h"

namespace wasmgpu::bench {
namespace {

static_assert(sizeof(particle) == 32);

// Particle i of the input.
particle input(uint64_t index) { return bench_particle(uint32_t(index)); }

particle step(particle p) {
  const float k = BENCH_PARTICLE_STIFFNESS, c = BENCH_PARTICLE_DAMPING, dt = BENCH_PARTICLE_DT;
  if (!(p.flags & 1u)) {
    float fx = -k * p.px - c * p.vx;
    float fy = -k * p.py - c * p.vy;
    float fz = -k * p.pz - c * p.vz;
    p.vx += fx * p.inverse_mass * dt;
    p.vy += fy * p.inverse_mass * dt;
    p.vz += fz * p.inverse_mass * dt;
    p.px += p.vx * dt;
    p.py += p.vy * dt;
    p.pz += p.vz * dt;
  }
  p.flags += 2u;
  return p;
}

class Particles final : public Workload {
 public:
  explicit Particles(Gpu& gpu) : kernels_(gpu, "particles") {}
  const char* name() const override { return "particles"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 1 << 14; }
  uint64_t start_size() const override { return 1 << 18; }
  uint64_t max_size(Gpu& gpu) const override { return std::min(memory_budget(gpu) / 64, max_invocations_1d(gpu, 256)); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    if (capacity > capacity_) {
      in_buf_.reset(), out_buf_.reset();
      in_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 32));
      out_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity * 32));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<particle>(gpu, *in_buf_, capacity, input);
      capacity_ = capacity;
    }
    struct {
      uint64_t in, out;
      float k, c, dt;
    } push{twin_address(gpu, *in_buf_), twin_address(gpu, *out_buf_), BENCH_PARTICLE_STIFFNESS, BENCH_PARTICLE_DAMPING,
           BENCH_PARTICLE_DT};
    kernels_.prepare({uint32_t(n / 256), 1, 1}, {256, 1, 1},
                     {*in_buf_, *out_buf_, BENCH_PARTICLE_STIFFNESS, BENCH_PARTICLE_DAMPING, BENCH_PARTICLE_DT}, &push,
                     sizeof push);
    kernels_.prepare_default(
        uint32_t(n), {*in_buf_, *out_buf_, BENCH_PARTICLE_STIFFNESS, BENCH_PARTICLE_DAMPING, BENCH_PARTICLE_DT});
  }
  double work() const override { return 64.0 * double(n_); }
  std::string size_text() const override { return fmt::format("n={} (32 B each)", n_); }
  std::string cuda_args() const override { return fmt::format("--size {}", n_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  void reset(Gpu& gpu) override { fill(gpu, *out_buf_, 0xFFFFFFFFu); }
  // Every particle, its input recomputed from its index.
  void check(Gpu& gpu, Variant v) override {
    check_elements<particle>(gpu, *out_buf_, n_, [&](uint64_t first, const particle* out, uint64_t count) {
      for (uint64_t k = 0; k < count; ++k) {
        const uint64_t i = first + k;
        particle expected = step(input(i));
        const float* got_f = &out[k].px;
        const float* want_f = &expected.px;
        if (out[k].flags != expected.flags)
          mismatch(name(), v, fmt::format("[{}].flags", i), out[k].flags, expected.flags);
        for (int f = 0; f < 7; ++f) {
          bool ok = is_exact(v) ? std::memcmp(&got_f[f], &want_f[f], 4) == 0 : close(got_f[f], want_f[f], 1e-5, 1.0);
          if (!ok) mismatch(name(), v, fmt::format("[{}] member {}", i, f), got_f[f], want_f[f]);
        }
      }
    });
  }

#if WASMGPU_BENCH_NATIVE
  std::unique_ptr<NativeTwin> native_twin() override {
    struct Arrays {
      std::vector<particle> in, out;
    };
    const uint64_t n = n_;
    auto d = std::make_shared<Arrays>(Arrays{generated<particle>(n, input), std::vector<particle>(n)});
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [d, n] {
      native_particles(d->in.data(), d->out.data(), n, BENCH_PARTICLE_STIFFNESS, BENCH_PARTICLE_DAMPING,
                       BENCH_PARTICLE_DT);
    };
    twin->check = [this, d, n](Gpu& gpu, Variant v) {
      check_native_bytes<particle>(gpu, *out_buf_, d->out.data(), n, name(), v, "particles");
    };
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0;
  std::unique_ptr<BufferBase> in_buf_, out_buf_;
};

}  // namespace

std::unique_ptr<Workload> make_particles(Gpu& gpu) { return std::make_unique<Particles>(gpu); }

}  // namespace wasmgpu::bench
