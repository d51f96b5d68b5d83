#include "harness/workload.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "harness/embedded.h"
#include "harness/native.h"

namespace wasmgpu::bench {

const char* to_string(Variant variant) {
  switch (variant) {
    case Variant::Glsl: return "glsl";
    case Variant::WasmFast: return "wasm";
    case Variant::GlslPrecise: return "glsl-precise";
    case Variant::WasmExact: return "exact";
    case Variant::WasmDefault: return "default";
  }
  return "?";
}

KernelSet::KernelSet(Gpu& gpu, const std::string& module, const std::string& kernel)
    : exact_(gpu, embedded(module + ".wasm"), kernel, ModuleOptions::FloatMode::Exact) {
  if (!gpu.is_cpu() || gpu.cpu_fast_kernels)
    fast_.emplace(gpu, embedded(module + ".wasm"), kernel, ModuleOptions::FloatMode::Fast);
  if (gpu.is_cpu()) return;
  plain_ = &gpu.twin(embedded(kernel + ".plain.spv"));
  precise_ = &gpu.twin(embedded(kernel + ".precise.spv"));
}

void KernelSet::prepare(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> size, std::vector<Argument> wasm_args,
                        const void* push, uint32_t push_size) {
  fast_launches_.clear(), exact_launches_.clear(), plain_launches_.clear(), precise_launches_.clear();
  default_launch_.reset();
  add_launch(groups, size, std::move(wasm_args), push, push_size);
}

size_t KernelSet::add_launch(std::array<uint32_t, 3> groups, std::array<uint32_t, 3> size,
                             std::vector<Argument> wasm_args, const void* push, uint32_t push_size) {
  exact_launches_.push_back(exact_.prepare(groups, size, wasm_args));
  if (fast_) fast_launches_.push_back(fast_->prepare(groups, size, wasm_args));
  if (plain_) {
    plain_launches_.push_back(Gpu::twin_launch(*plain_, push, push_size, groups));
    precise_launches_.push_back(Gpu::twin_launch(*precise_, push, push_size, groups));
  }
  return exact_launches_.size() - 1;
}

// The user's default is exact mode (Module's default float mode) with no
// workgroup size: the README's launch.
void KernelSet::prepare_default(uint32_t n, std::vector<Argument> wasm_args) {
  default_launch_.emplace(exact_.kernel(), Launch(n), std::move(wasm_args));
}

LaunchChoice KernelSet::settle_default() {
  if (!default_launch_) throw std::logic_error("settle_default without a default launch");
  const Kernel& kernel = exact_.kernel();
  const Launch& shape = default_launch_->shape();
  // At most one call per candidate size (the powers of two from 64 to 1024
  // and the heuristic's), with margin.
  for (int call = 0; call < 16 && kernel.launch_shape(shape).source == LaunchChoice::Source::Tuning; ++call)
    kernel.launch(shape, default_launch_->args());
  return kernel.launch_shape(shape);
}

void KernelSet::record(CommandBuffer& commands, Variant variant, size_t index) const {
  switch (variant) {
    case Variant::WasmFast: fast_launches_.at(index).record(commands); break;
    case Variant::WasmExact: exact_launches_.at(index).record(commands); break;
    case Variant::WasmDefault: default_launch_->record(commands); break;
    case Variant::Glsl: plain_launches_.at(index).record(commands); break;
    case Variant::GlslPrecise: precise_launches_.at(index).record(commands); break;
  }
}

std::unique_ptr<NativeTwin> Workload::native_twin() { return nullptr; }

BufferBase make_buffer(Gpu& gpu, uint64_t bytes) { return gpu.device().buffer_bytes(bytes); }

void upload(BufferBase& buffer, const void* data, uint64_t bytes, uint64_t offset) {
  buffer.write_bytes(std::span<const std::byte>(static_cast<const std::byte*>(data), bytes), offset);
}

void download(const BufferBase& buffer, void* data, uint64_t bytes, uint64_t offset) {
  buffer.read_bytes(std::span<std::byte>(static_cast<std::byte*>(data), bytes), offset);
}

void fill(Gpu& gpu, BufferBase& buffer, uint32_t pattern) {
  gpu.run([&](CommandBuffer& commands) { commands.fill(buffer, pattern); });
}

uint64_t memory_budget(Gpu& gpu) {
  const uint64_t heap = gpu.info().device_local_memory_bytes;
  const uint64_t space = 3584ull << 20;  // the wasm address space less module memory and guards
  return std::min(heap ? heap / 4 : space, space);
}

uint64_t max_invocations_1d(Gpu& gpu, uint32_t size) { return uint64_t(gpu.info().max_workgroup_count_x) * size; }

void mismatch(const std::string& workload, Variant variant, const std::string& where, double got, double expected) {
  throw std::runtime_error(fmt::format("{} ({}): wrong result at {}: got {:.9g}, expected {:.9g}", workload,
                                       to_string(variant), where, got, expected));
}

bool close(double got, double expected, double tolerance, double scale) {
  if (std::isnan(got) || std::isnan(expected)) return false;
  return std::fabs(got - expected) <= tolerance * std::max(std::fabs(expected), scale);
}

bool sum_matches(Variant variant, float got, float want, double magnitude) {
  if (is_exact(variant)) return std::memcmp(&got, &want, 4) == 0;
  return std::fabs(got - want) <= 1e-5 * magnitude + 1e-6;
}

uint64_t largest_square_size(Gpu& gpu, uint64_t matrices, uint64_t vectors, uint64_t step, uint64_t max_n) {
  const uint64_t budget = memory_budget(gpu);
  uint64_t n = step;
  auto fits = [&](uint64_t m) { return matrices * m * m * 4 + vectors * m * 4 <= budget && m <= max_n; };
  while (fits(n + step)) n += step;
  return n;
}

}  // namespace wasmgpu::bench

#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {

namespace {

using Factory = std::unique_ptr<Workload> (*)(Gpu&);
// In the order the table lists them.
const std::pair<const char*, Factory> kWorkloads[] = {{"triad", make_triad},
                                                      {"reduce", make_reduce},
                                                      {"mandelbrot", make_mandelbrot},
                                                      {"sgemm", make_sgemm},
                                                      {"stencil", make_stencil},
                                                      {"horner_f64", make_horner_f64},
                                                      {"histogram", make_histogram},
                                                      {"particles", make_particles},
                                                      {"jacobi_2d", make_jacobi_2d},
                                                      {"gesummv", make_gesummv},
                                                      {"atax", make_atax},
                                                      {"bicg", make_bicg},
                                                      {"2mm", make_mm2},
                                                      {"fdtd_2d", make_fdtd_2d},
                                                      {"correlation", make_correlation}};

}  // namespace

std::vector<std::unique_ptr<Workload>> make_workloads(Gpu& gpu, const std::vector<std::string>& only) {
  if (!gpu.info().float64)
    throw std::runtime_error("the bench needs a device with shaderFloat64 (exact mode and the f64 workload use it)");
  std::vector<std::unique_ptr<Workload>> workloads;
  for (const auto& [name, make] : kWorkloads)
    if (only.empty() || std::find(only.begin(), only.end(), name) != only.end()) workloads.push_back(make(gpu));
  return workloads;
}

std::unique_ptr<Workload> make_workload(Gpu& gpu, const std::string& name) {
  for (const auto& [known, make] : kWorkloads)
    if (name == known) return make(gpu);
  throw std::logic_error("no workload named '" + name + "'");
}

}  // namespace wasmgpu::bench
