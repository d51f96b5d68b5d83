#include "harness/workload.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "harness/embedded.h"
#include "runtime/device_state.h"

namespace wasmgpu::bench {

const char* to_string(Variant variant) {
  switch (variant) {
    case Variant::Glsl: return "glsl";
    case Variant::WasmFast: return "wasm";
    case Variant::GlslPrecise: return "glsl-precise";
    case Variant::WasmExact: return "exact";
  }
  return "?";
}

KernelSet::KernelSet(Gpu& gpu, const std::string& name)
    : gpu_(gpu),
      fast_(gpu, embedded(name + ".wasm"), name, spirv::FloatMode::Fast),
      exact_(gpu, embedded(name + ".wasm"), name, spirv::FloatMode::Exact) {
  plain_ = gpu.twin_pipeline(embedded(name + ".plain.spv"), name + ".plain.spv");
  precise_ = gpu.twin_pipeline(embedded(name + ".precise.spv"), name + ".precise.spv");
}

void KernelSet::prepare(runtime::Grid groups, runtime::WorkgroupSize size, std::vector<runtime::Arg> wasm_args,
                        const void* push, uint32_t push_size) {
  if (push_size > kTwinPushBytes) throw std::logic_error("twin push constants too large");
  groups_ = groups;
  fast_launch_.reset(), exact_launch_.reset();
  fast_launch_.emplace(fast_.prepare(groups, size, wasm_args));
  exact_launch_.emplace(exact_.prepare(groups, size, wasm_args));
  push_.assign(static_cast<const uint8_t*>(push), static_cast<const uint8_t*>(push) + push_size);
}

void KernelSet::record(VkCommandBuffer cmd, Variant variant) {
  switch (variant) {
    case Variant::WasmFast: fast_launch_->record(cmd); break;
    case Variant::WasmExact: exact_launch_->record(cmd); break;
    case Variant::Glsl:
    case Variant::GlslPrecise:
      gpu_.dispatch_twin(cmd, variant == Variant::Glsl ? plain_ : precise_, push_.data(), uint32_t(push_.size()),
                         groups_.x, groups_.y, groups_.z);
      break;
  }
}

runtime::Buffer make_buffer(Gpu& gpu, uint64_t bytes) {
  auto buffer = gpu.device().create_buffer(bytes);
  if (!buffer) throw std::runtime_error(buffer.error().to_string());
  if (!buffer->wasm_address())
    throw std::runtime_error(fmt::format("a {} MiB buffer did not fit in the wasm address space", bytes >> 20));
  return std::move(buffer).value();
}

void upload(runtime::Buffer& buffer, const void* data, uint64_t bytes, uint64_t offset) {
  if (Status s = buffer.write(data, bytes, offset); !s) throw std::runtime_error(s.error().to_string());
}

void download(const runtime::Buffer& buffer, void* data, uint64_t bytes, uint64_t offset) {
  if (Status s = buffer.read(data, bytes, offset); !s) throw std::runtime_error(s.error().to_string());
}

void fill(Gpu& gpu, runtime::Buffer& buffer, uint32_t pattern) {
  gpu.run([&](VkCommandBuffer cmd) { gpu.vk().vkCmdFillBuffer(cmd, buffer.handle(), 0, VK_WHOLE_SIZE, pattern); });
}

uint64_t memory_budget(Gpu& gpu) {
  const uint64_t heap = gpu.device().info().device_local_memory_bytes;
  const uint64_t space = 3584ull << 20;  // the wasm address space less module memory and guards
  return std::min(heap ? heap / 4 : space, space);
}

uint64_t max_invocations_1d(Gpu& gpu, uint32_t size) {
  return uint64_t(gpu.device().info().limits.max_workgroup_count[0]) * size;
}

void mismatch(const std::string& workload, Variant variant, const std::string& where, double got,
              double expected) {
  throw std::runtime_error(fmt::format("{} ({}): wrong result at {}: got {:.9g}, expected {:.9g}", workload,
                                       to_string(variant), where, got, expected));
}

bool close(double got, double expected, double tolerance, double scale) {
  if (std::isnan(got) || std::isnan(expected)) return false;
  return std::fabs(got - expected) <= tolerance * std::max(std::fabs(expected), scale);
}

}  // namespace wasmgpu::bench

#include "harness/workloads/workloads.h"

namespace wasmgpu::bench {

std::vector<std::unique_ptr<Workload>> make_workloads(Gpu& gpu, const std::vector<std::string>& only) {
  if (!gpu.device().float64_enabled())
    throw std::runtime_error("the bench needs a device with shaderFloat64 (exact mode and the f64 workload use it)");
  using Factory = std::unique_ptr<Workload> (*)(Gpu&);
  const std::pair<const char*, Factory> all[] = {
      {"triad", make_triad},   {"reduce", make_reduce},         {"mandelbrot", make_mandelbrot},
      {"sgemm", make_sgemm},   {"stencil", make_stencil},       {"horner_f64", make_horner_f64},
      {"histogram", make_histogram}, {"particles", make_particles}};
  std::vector<std::unique_ptr<Workload>> workloads;
  for (const auto& [name, make] : all)
    if (only.empty() || std::find(only.begin(), only.end(), name) != only.end()) workloads.push_back(make(gpu));
  return workloads;
}

}  // namespace wasmgpu::bench
