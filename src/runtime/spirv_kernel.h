// A foreign SPIR-V compute kernel (GLSL, HLSL, Slang, rust-gpu ...) on a
// Device, bound through its reflected interface (reflect/spirv_reflect.h).
//
// Unlike a wasm Kernel, nothing here follows the wasmgpu launch ABI: the
// shader's own descriptor sets, push constants, specialization constants and
// workgroup size are what a launch fills in. SpirvKernel builds, from the
// SPIR-V and its KernelInterface:
//   - one VkDescriptorSetLayout per set number the entry point uses (empty
//     layouts fill gaps), descriptor types from the parameters' kinds;
//   - descriptor pools (grown on demand; sets are freed by SpirvBindings);
//   - the VkPipelineLayout, with one push-constant range of the reflected
//     block's size;
//   - one VkPipeline per workgroup size and spec-constant values (cached).
//
// Arguments bind to KernelInterface::params by position, or all by name
// (SpirvArg::named). Checks, each failing with a message naming the kernel,
// the parameter and its position, without recording anything: argument
// count, unknown or repeated names, kind (a scalar for a buffer ...), scalar
// type (integers convert when the value fits; floats must match), byte sizes
// of Bytes and uniform values, storage buffers smaller than the fixed part
// of their block (the part before a runtime array), misaligned offsets,
// image layouts, workgroup sizes the shader fixes or the device cannot run.
//
// Use: record() into a caller's command buffer (the caller adds barriers and
// keeps the returned SpirvBindings alive until that command buffer has
// completed), or launch() to record, submit and wait on the Device's own
// command buffer.
//
// Lifetimes: a SpirvKernel must be destroyed before its Device; the
// SpirvBindings of a dispatch, before its SpirvKernel. Buffers, image views
// and samplers passed as arguments must outlive the GPU's use of them.
#pragma once

#include <volk.h>

#include "interface/kernel_interface.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/buffer.h"
#include "runtime/launch.h"
#include "support/result.h"

namespace wasmgpu::runtime {

struct DeviceState;

// One argument of a foreign kernel.
class SpirvArg {
 public:
  enum class Kind { Scalar, Bytes, Buffer, Image, Sampler, ImageSampler };

  static SpirvArg scalar(ScalarType type, uint64_t bits);
  static SpirvArg of(int32_t v) { return scalar(ScalarType::I32, uint32_t(v)); }
  static SpirvArg of(uint32_t v) { return scalar(ScalarType::U32, v); }
  static SpirvArg of(int64_t v) { return scalar(ScalarType::I64, uint64_t(v)); }
  static SpirvArg of(uint64_t v) { return scalar(ScalarType::U64, v); }
  static SpirvArg of(float v);
  static SpirvArg of(double v);
  // A push-constant member or uniform value given as bytes (a C struct).
  static SpirvArg bytes(const void* data, size_t size);
  template <class T>
  static SpirvArg value(const T& v) {
    return bytes(&v, sizeof v);
  }
  // A storage or uniform buffer: `size` bytes at `offset` of `buffer`.
  static SpirvArg buffer(VkBuffer buffer, uint64_t size, uint64_t offset = 0);
  static SpirvArg buffer(const Buffer& buffer) { return SpirvArg::buffer(buffer.handle(), buffer.size()); }
  // A storage image (layout GENERAL) or sampled image.
  static SpirvArg image(VkImageView view, VkImageLayout layout = VK_IMAGE_LAYOUT_GENERAL);
  static SpirvArg sampler(VkSampler sampler);
  static SpirvArg image_sampler(VkImageView view, VkSampler sampler,
                                VkImageLayout layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);

  // This argument bound to the parameter called `name`.
  SpirvArg named(std::string name) && {
    name_ = std::move(name);
    return std::move(*this);
  }

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  ScalarType scalar_type() const { return scalar_; }
  uint64_t bits() const { return bits_; }
  const std::vector<uint8_t>& data() const { return bytes_; }
  VkBuffer vk_buffer() const { return buffer_; }
  uint64_t buffer_size() const { return size_; }
  uint64_t buffer_offset() const { return offset_; }
  VkImageView view() const { return view_; }
  VkImageLayout layout() const { return layout_; }
  VkSampler vk_sampler() const { return sampler_; }
  // "u32 scalar", "8 bytes", "buffer of 64 bytes", "image", ...
  std::string describe() const;

 private:
  Kind kind_ = Kind::Scalar;
  std::string name_;
  ScalarType scalar_ = ScalarType::U32;
  uint64_t bits_ = 0;
  std::vector<uint8_t> bytes_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  uint64_t size_ = 0, offset_ = 0;
  VkImageView view_ = VK_NULL_HANDLE;
  VkImageLayout layout_ = VK_IMAGE_LAYOUT_GENERAL;
  VkSampler sampler_ = VK_NULL_HANDLE;
};

// The shape of one dispatch.
struct SpirvLaunch {
  std::array<uint32_t, 3> groups{1, 1, 1};
  // nullopt: the shader's declared size (spec-constant dimensions at their
  // defaults). Dimensions the shader fixes must equal it.
  std::optional<std::array<uint32_t, 3>> workgroup_size;
  // Specialization constants by SpecId (bits as SpecConstant::default_bits);
  // the workgroup size's own spec constants come from `workgroup_size`.
  std::map<uint32_t, uint64_t> spec_constants;
};

namespace detail {
struct SpirvKernelState;
}

// What one recorded dispatch holds on to: its descriptor sets and the
// buffers of uniform values. Destroying it frees them (after the Device's
// pending work when a launch timed out); keep it until the command buffer
// the dispatch was recorded into has completed.
class SpirvBindings {
 public:
  SpirvBindings() = default;
  SpirvBindings(SpirvBindings&&) noexcept;
  SpirvBindings& operator=(SpirvBindings&&) noexcept;
  ~SpirvBindings();

 private:
  friend class SpirvKernel;
  void release();
  std::shared_ptr<detail::SpirvKernelState> state_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets_;
  std::vector<RawBuffer> uniforms_;
};

class SpirvKernel {
 public:
  // `words` must contain the entry point `interface.name` (GLCompute) with
  // the resources `interface` describes (as reflect_spirv gives them).
  static Result<SpirvKernel> create(DeviceState& device, std::span<const uint32_t> words, KernelInterface interface);
  // Reflects `words` and creates the kernel of entry point `entry` (empty:
  // the only compute entry point; an error names them when there are more).
  static Result<SpirvKernel> create(DeviceState& device, std::span<const uint32_t> words,
                                    const std::string& entry = {});

  SpirvKernel(SpirvKernel&&) noexcept;
  SpirvKernel& operator=(SpirvKernel&&) noexcept;
  ~SpirvKernel();

  const KernelInterface& interface() const;
  const std::string& name() const { return interface().name; }

  // The workgroup size a launch with `requested` runs with, checked against
  // the shader and the device's limits.
  Result<std::array<uint32_t, 3>> workgroup_size(const std::optional<std::array<uint32_t, 3>>& requested) const;
  // For 1-D launches of n invocations that choose no workgroup size: the
  // shader's size, with a specialisable x at kDefaultWorkgroupSize.
  std::array<uint32_t, 3> default_workgroup_size() const;

  // The argument bound to each parameter, in KernelInterface::params order;
  // fails on every mismatch listed in the header comment.
  Result<std::vector<const SpirvArg*>> bind(std::span<const SpirvArg> args) const;

  // Records bind-pipeline, descriptor sets, push constants and the dispatch
  // into `cmd` (recording, from a pool of the kernel's Device). No barriers.
  Result<SpirvBindings> record(VkCommandBuffer cmd, const SpirvLaunch& launch, std::span<const SpirvArg> args);

  // Synchronous: records into the Device's command buffer with barriers
  // against earlier and later work, submits and waits up to `timeout`.
  Status launch(const SpirvLaunch& launch, std::span<const SpirvArg> args,
                std::chrono::nanoseconds timeout = default_launch_timeout());

 private:
  explicit SpirvKernel(std::shared_ptr<detail::SpirvKernelState> state) : state_(std::move(state)) {}
  Result<VkPipeline> pipeline(const std::array<uint32_t, 3>& size, const std::map<uint32_t, uint64_t>& specs);
  std::shared_ptr<detail::SpirvKernelState> state_;
};

}  // namespace wasmgpu::runtime
