// A benchmark workload: one problem solved by five variants (the wasm kernel
// in fast and exact float modes, the GLSL twin and its `precise` build, and
// the fast-mode kernel launched as a user writes it, kernel(n, ...) with no
// workgroup size, where its kernel is 1-D), each verified against a CPU
// reference before it is timed.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/gpu.h"
#include "harness/wasm_kernel.h"

namespace wasmgpu::bench {

// WasmDefault: the WasmFast kernel launched with no workgroup size, as
// kernel(n, ...) launches it (the size the launch-shape heuristic or the
// autotuner's winner gives; docs/host-api.md, "Launch shapes").
enum class Variant { Glsl, WasmFast, GlslPrecise, WasmExact, WasmDefault };
inline constexpr Variant kVariants[] = {Variant::Glsl, Variant::WasmFast, Variant::GlslPrecise, Variant::WasmExact,
                                        Variant::WasmDefault};
const char* to_string(Variant variant);
// Exact variants must reproduce the CPU reference's bits; the others are
// checked with a tolerance (the device may contract or flush).
inline bool is_exact(Variant v) { return v == Variant::GlslPrecise || v == Variant::WasmExact; }

struct NativeTwin;

// What a workload's throughput counts.
enum class Unit { Bytes, Flops };

// The wasm kernel (fast, exact) and the twin (plain, precise) of a workload,
// with one prepared launch each, and the default launch where there is one.
class KernelSet {
 public:
  // `name`: the embedded bench/kernels/NAME.c (as NAME.wasm, export NAME) and
  // bench/glsl/NAME.comp (as NAME.plain.spv and NAME.precise.spv).
  KernelSet(Gpu& gpu, const std::string& name) : KernelSet(gpu, name, name) {}
  // Kernel `kernel` of the embedded module `module`.wasm (a workload of
  // several kernels keeps them in one module), with the twins KERNEL.comp.
  KernelSet(Gpu& gpu, const std::string& module, const std::string& kernel);
  // Prepares the launches (again after buffers changed): a grid of `groups`
  // workgroups of `size`, the wasm arguments and the twin's push constants.
  void prepare(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> size, std::vector<Argument> wasm_args,
               const void* push, uint32_t push_size);
  // One more launch of the same kernels (after prepare), with other
  // arguments: record(..., index) records it. Returns its index.
  size_t add_launch(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> size, std::vector<Argument> wasm_args,
                    const void* push, uint32_t push_size);
  // The default launch of a 1-D kernel: `n` invocations of the fast-mode
  // kernel with no workgroup size, kernel(n, wasm_args...).
  void prepare_default(uint32_t n, std::vector<Argument> wasm_args);
  bool has_default() const { return default_launch_.has_value(); }
  // Calls kernel(n, ...) synchronously, as a user does, until its launch
  // shape is no longer being tuned (each call of a tunable kernel times one
  // autotuner candidate, once; none of them is a measured run), and returns
  // the shape the default launches then get. Without the autotuner
  // (WASMGPU_AUTOTUNE=0, untunable kernels, small n) it calls nothing.
  LaunchChoice settle_default();
  // Records launch `index` (0: the one prepare made) of `variant`.
  void record(CommandBuffer& commands, Variant variant, size_t index = 0) const;

 private:
  // fast_ (unless Gpu::cpu_fast_kernels) and the twins are not loaded on the
  // cpu device (its column runs the default float mode, exact; it has no
  // foreign SPIR-V).
  std::optional<WasmKernel> fast_;
  WasmKernel exact_;
  const Kernel *plain_ = nullptr, *precise_ = nullptr;
  std::vector<WasmLaunch> fast_launches_, exact_launches_;
  std::optional<WasmLaunch> default_launch_;
  std::vector<TwinLaunch> plain_launches_, precise_launches_;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual const char* name() const = 0;
  virtual Unit unit() const = 0;
  // Bound by memory bandwidth (compared with the copy bandwidth).
  virtual bool memory_bound() const { return unit() == Unit::Bytes; }
  // The problem size: a start for --quick, a start for the calibration, and
  // the largest the device allows (memory and limits).
  virtual uint64_t quick_size() const = 0;
  virtual uint64_t start_size() const = 0;
  virtual uint64_t max_size(Gpu& gpu) const = 0;
  // Rounds a wanted size to one the kernels support.
  virtual uint64_t round_size(uint64_t size) const = 0;
  // How the work grows with the size (1: linear, 2: area, 3: n^3).
  virtual int size_exponent() const { return 1; }
  // Prepares the launches for `size`, on buffers and inputs for `capacity`
  // (>= size, in the same unit): made anew only when the ones it has are
  // smaller, so the calibration's growing sizes reuse them (every input is a
  // function of the element index: a prefix is the smaller problem's input).
  virtual void setup(Gpu& gpu, uint64_t size, uint64_t capacity) = 0;
  // Bytes moved or flops done by one run (valid after a checked run for
  // workloads whose work depends on the output, like Mandelbrot).
  virtual double work() const = 0;
  // "n=16777216", for the table.
  virtual std::string size_text() const = 0;
  // Arguments for the CUDA twin program, after --workload NAME.
  virtual std::string cuda_args() const = 0;
  // Why `variant` is not run on this device (empty: it is run).
  virtual std::string skip_reason(Gpu&, Variant) const { return {}; }
  // The workload's kernels.
  virtual KernelSet& kernels() = 0;
  // Why the kernel has no default launch (kernel(n, ...) is 1-D with a size
  // chosen for the device), for workloads that do not prepare one.
  virtual std::string no_default_reason() const { return "no 1-D launch"; }
  // Records one run of `variant`.
  virtual void record(CommandBuffer& commands, Variant variant) = 0;
  // The native CPU twin (harness/native.h) for the current size, with host
  // arrays of its own; none where the workload has no twin or the build has
  // no OpenMP.
  virtual std::unique_ptr<NativeTwin> native_twin();
  // Before a checked run: clears outputs that accumulate (histogram bins).
  virtual void reset(Gpu&) {}
  // After one run of `variant` on cleared outputs: compares with the CPU
  // reference; throws std::runtime_error naming the first mismatch. Checks
  // run in parallel (parallel_for) and read the output through the Gpu's
  // staging buffer; large outputs whose reference is costly are sampled
  // (sample_indices: the first and last elements included).
  virtual void check(Gpu& gpu, Variant variant) = 0;
};

std::vector<std::unique_ptr<Workload>> make_workloads(Gpu& gpu, const std::vector<std::string>& only);

// Helpers for workloads.
// A buffer's device address for the GLSL twins' push constants; 0 on the cpu
// device, which has no buffer device addresses and runs no twins.
inline uint64_t twin_address(Gpu& gpu, const BufferBase& buffer) { return gpu.is_cpu() ? 0 : buffer.device_address(); }
BufferBase make_buffer(Gpu& gpu, uint64_t bytes);
void upload(BufferBase& buffer, const void* data, uint64_t bytes, uint64_t offset = 0);
void download(const BufferBase& buffer, void* data, uint64_t bytes, uint64_t offset = 0);
// Sets every 32-bit word of `buffer` to `pattern` with a CommandBuffer fill
// (a CPU fill of host-mapped device memory writes across the PCIe BAR).
void fill(Gpu& gpu, BufferBase& buffer, uint32_t pattern);
// Device memory a workload may use (a quarter of the device-local heap, at most
// the wasm address space's 3.5 GiB).
uint64_t memory_budget(Gpu& gpu);
// Largest 1-D grid of workgroups of `size`.
uint64_t max_invocations_1d(Gpu& gpu, uint32_t size);
// "f32 mismatch at i: got X, expected Y (variant)"
[[noreturn]] void mismatch(const std::string& workload, Variant variant, const std::string& where, double got,
                           double expected);
// Relative closeness for inexact variants.
bool close(double got, double expected, double tolerance, double scale = 0.0);
// A sum of products as `variant` must give it: exact variants bit for bit,
// the others within 1e-5 of `magnitude` (the sum of the products'
// magnitudes, the scale of a reordered or contracted sum's rounding) + 1e-6.
bool sum_matches(Variant variant, float got, float want, double magnitude);
// The largest n, a multiple of `step` up to `max_n`, whose `matrices` n x n
// and `vectors` n-element f32 arrays fit in memory_budget(gpu) (at least `step`).
uint64_t largest_square_size(Gpu& gpu, uint64_t matrices, uint64_t vectors, uint64_t step, uint64_t max_n);

}  // namespace wasmgpu::bench
