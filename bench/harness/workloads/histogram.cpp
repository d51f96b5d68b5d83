// 256-bin byte histogram with shared-memory atomics (bench/kernels/histogram.c,
// bench/glsl/histogram.comp): one byte per load.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <mutex>

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

uint8_t input(uint64_t i) { return bench_byte(uint32_t(i)); }

class Histogram final : public Workload {
 public:
  explicit Histogram(Gpu& gpu) : kernels_(gpu, "histogram") {}
  const char* name() const override { return "histogram"; }
  Unit unit() const override { return Unit::Bytes; }
  uint64_t quick_size() const override { return 1 << 18; }
  uint64_t start_size() const override { return 1 << 22; }
  uint64_t max_size(Gpu& gpu) const override { return std::min<uint64_t>(memory_budget(gpu), 0xFFFF0000u); }
  uint64_t round_size(uint64_t n) const override { return std::max<uint64_t>(256, n / 256 * 256); }
  static uint32_t groups_for(uint64_t n) { return uint32_t(std::clamp<uint64_t>(n / (256 * 256), 1, 1024)); }

  void setup(Gpu& gpu, uint64_t n, uint64_t capacity) override {
    n_ = n;
    groups_ = groups_for(n);
    if (capacity > capacity_) {
      data_buf_.reset(), bins_buf_.reset();
      data_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, capacity));
      bins_buf_ = std::make_unique<BufferBase>(make_buffer(gpu, 256 * 4));
      TracePhase phase(name(), fmt::format("generate and upload inputs for n={}", capacity));
      upload_generated<uint8_t>(gpu, *data_buf_, capacity, input);
      capacity_ = capacity;
    }
    struct {
      uint64_t data, bins;
      uint32_t n;
    } push{twin_address(gpu, *data_buf_), twin_address(gpu, *bins_buf_), uint32_t(n)};
    kernels_.prepare({groups_, 1, 1}, {256, 1, 1}, {*data_buf_, uint32_t(n), *bins_buf_}, &push, sizeof push);
  }
  double work() const override { return double(n_); }
  std::string size_text() const override { return fmt::format("n={} groups={}", n_, groups_); }
  std::string cuda_args() const override { return fmt::format("--size {} --groups {}", n_, groups_); }
  void record(CommandBuffer& commands, Variant v) override { kernels_.record(commands, v); }
  KernelSet& kernels() override { return kernels_; }
  std::string no_default_reason() const override {
    return "its workgroups of 256 share bins in workgroup memory (local index, barriers): a user gives the size";
  }
  void reset(Gpu& gpu) override { fill(gpu, *bins_buf_, 0); }
  void check(Gpu&, Variant v) override {
    if (reference_n_ != n_) reference();
    std::vector<uint32_t> bins(256);
    download(*bins_buf_, bins.data(), 256 * 4);
    for (int b = 0; b < 256; ++b)
      if (bins[b] != expected_[b]) mismatch(name(), v, fmt::format("bin {}", b), bins[b], expected_[b]);
  }

#if WASMGPU_BENCH_NATIVE
  std::unique_ptr<NativeTwin> native_twin() override {
    struct Arrays {
      std::vector<uint8_t> data;
      std::array<int32_t, 256> bins{};
    };
    const uint64_t n = n_;
    auto d = std::make_shared<Arrays>();
    d->data = generated<uint8_t>(n, input);
    auto twin = std::make_unique<NativeTwin>();
    twin->run = [d, n] { native_histogram(d->data.data(), n, d->bins.data()); };
    twin->check = [this, d](Gpu& gpu, Variant v) {
      check_native_bytes<int32_t>(gpu, *bins_buf_, d->bins.data(), 256, name(), v, "bins");
    };
    return twin;
  }
#endif

 private:
  KernelSet kernels_;
  uint64_t n_ = 0, capacity_ = 0, reference_n_ = 0;
  uint32_t groups_ = 1;
  std::array<uint64_t, 256> expected_{};
  std::unique_ptr<BufferBase> data_buf_, bins_buf_;

  // The bins of the first n bytes, recomputed from their index: a histogram
  // per chunk, added up (integers: in any order).
  void reference() {
    TracePhase phase(name(), fmt::format("CPU reference for n={}", n_));
    expected_.fill(0);
    std::mutex mutex;
    parallel_for(n_, 1 << 22, [&](uint64_t begin, uint64_t end) {
      std::array<uint64_t, 256> bins{};
      for (uint64_t i = begin; i < end; ++i) ++bins[input(i)];
      std::lock_guard<std::mutex> lock(mutex);
      for (int b = 0; b < 256; ++b) expected_[b] += bins[b];
    });
    reference_n_ = n_;
  }
};

}  // namespace

std::unique_ptr<Workload> make_histogram(Gpu& gpu) { return std::make_unique<Histogram>(gpu); }

}  // namespace wasmgpu::bench
