#include "runtime/spirv_kernel.h"

#include <chrono>
#include <algorithm>
#include <cstring>
#include <set>

#include "reflect/spirv_reflect.h"
#include "runtime/device_state.h"
#include "runtime/pipeline_statistics.h"
#include "runtime/pipeline_warmup.h"
#include "runtime/vk_util.h"

namespace wasmgpu::runtime {

namespace detail {

struct SpirvKernelState {
  DeviceState* device = nullptr;
  KernelInterface interface;
  VkShaderModule shader = VK_NULL_HANDLE;
  // Index = set number; VK_NULL_HANDLE never (gaps get empty layouts).
  std::vector<VkDescriptorSetLayout> set_layouts;
  std::vector<bool> set_used;  // whether a set number has bindings
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  uint32_t push_size = 0;  // rounded up to 4
  std::vector<VkDescriptorPool> pools;
  std::vector<VkDescriptorPoolSize> pool_sizes;  // per kSetsPerPool sets
  std::map<std::vector<uint64_t>, VkPipeline> pipelines;
  // Pipelines warmed up (pipeline_warmup.h), at their first record().
  std::set<VkPipeline> warmed;
  VkPhysicalDeviceLimits limits{};

  ~SpirvKernelState() {
    if (!device) return;
    DeviceState* d = device;
    auto pipelines_copy = pipelines;
    auto pools_copy = pools;
    auto layouts = set_layouts;
    VkPipelineLayout pl = pipeline_layout;
    VkShaderModule sm = shader;
    d->destroy_later([d, pipelines_copy, pools_copy, layouts, pl, sm] {
      for (auto& [key, p] : pipelines_copy) d->vk.vkDestroyPipeline(d->device, p, nullptr);
      for (VkDescriptorPool p : pools_copy) d->vk.vkDestroyDescriptorPool(d->device, p, nullptr);
      d->vk.vkDestroyPipelineLayout(d->device, pl, nullptr);
      for (VkDescriptorSetLayout l : layouts) d->vk.vkDestroyDescriptorSetLayout(d->device, l, nullptr);
      d->vk.vkDestroyShaderModule(d->device, sm, nullptr);
    });
    --d->live_children;
  }
};

}  // namespace detail

namespace {

constexpr uint32_t kSetsPerPool = 32;

VkDescriptorType descriptor_type(ParamKind kind) {
  switch (kind) {
    case ParamKind::Buffer: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case ParamKind::UniformBuffer: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case ParamKind::StorageImage: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case ParamKind::SampledImage: return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case ParamKind::Sampler: return VK_DESCRIPTOR_TYPE_SAMPLER;
    case ParamKind::CombinedImageSampler: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    default: return VK_DESCRIPTOR_TYPE_MAX_ENUM;
  }
}

bool is_descriptor(ParamKind kind) { return descriptor_type(kind) != VK_DESCRIPTOR_TYPE_MAX_ENUM; }

bool is_integer(ScalarType t) { return t != ScalarType::F32 && t != ScalarType::F64; }
uint32_t scalar_bytes(ScalarType t) {
  return t == ScalarType::I64 || t == ScalarType::U64 || t == ScalarType::F64 ? 8 : 4;
}

// The integer `bits` of type `from` as type `to`, when the value fits.
std::optional<uint64_t> convert_integer(ScalarType from, uint64_t bits, ScalarType to) {
  // The value as a 128-bit-free pair: sign and magnitude.
  bool negative = false;
  uint64_t magnitude = 0;
  if (from == ScalarType::I32) {
    const int64_t v = int32_t(uint32_t(bits));
    negative = v < 0;
    magnitude = negative ? uint64_t(-v) : uint64_t(v);
  } else if (from == ScalarType::I64) {
    const int64_t v = int64_t(bits);
    negative = v < 0;
    magnitude = negative ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  } else {
    magnitude = from == ScalarType::U32 ? uint32_t(bits) : bits;
  }
  switch (to) {
    case ScalarType::U32:
      if (negative || magnitude > UINT32_MAX) return std::nullopt;
      return magnitude;
    case ScalarType::U64:
      if (negative) return std::nullopt;
      return magnitude;
    case ScalarType::I32:
      if (negative ? magnitude > 0x80000000ull : magnitude > INT32_MAX) return std::nullopt;
      return uint64_t(uint32_t(negative ? uint32_t(0) - uint32_t(magnitude) : uint32_t(magnitude)));
    case ScalarType::I64:
      if (negative ? magnitude > 0x8000000000000000ull : magnitude > uint64_t(INT64_MAX)) return std::nullopt;
      return negative ? uint64_t(0) - magnitude : magnitude;
    default: return std::nullopt;
  }
}

std::string scalar_text(ScalarType type, uint64_t bits) {
  switch (type) {
    case ScalarType::I32: return std::to_string(int32_t(uint32_t(bits)));
    case ScalarType::U32: return std::to_string(uint32_t(bits));
    case ScalarType::I64: return std::to_string(int64_t(bits));
    case ScalarType::U64: return std::to_string(bits);
    case ScalarType::F32: {
      float f;
      const uint32_t b = uint32_t(bits);
      std::memcpy(&f, &b, 4);
      return std::to_string(f);
    }
    case ScalarType::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return std::to_string(d);
    }
  }
  return "?";
}

// "buffer 'data' (set 0, binding 1)", "push constant 'n' (offset 4)"
std::string describe_param(const Param& p) {
  std::string text = std::string(to_string(p.kind)) + " '" + p.name + "'";
  if (p.set) text += " (set " + std::to_string(*p.set) + ", binding " + std::to_string(*p.binding) + ")";
  if (p.push_offset) {
    text = std::string("push constant '") + p.name + "' (" +
           (p.kind == ParamKind::Scalar ? to_string(p.scalar) : std::to_string(p.size) + " bytes") + " at offset " +
           std::to_string(*p.push_offset) + ")";
  }
  return text;
}

}  // namespace

// ------------------------------------------------------------------- SpirvArg

SpirvArg SpirvArg::scalar(ScalarType type, uint64_t bits) {
  SpirvArg a;
  a.kind_ = Kind::Scalar;
  a.scalar_ = type;
  a.bits_ = bits;
  return a;
}
SpirvArg SpirvArg::of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return scalar(ScalarType::F32, b);
}
SpirvArg SpirvArg::of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return scalar(ScalarType::F64, b);
}
SpirvArg SpirvArg::bytes(const void* data, size_t size) {
  SpirvArg a;
  a.kind_ = Kind::Bytes;
  a.bytes_.assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
  return a;
}
SpirvArg SpirvArg::buffer(VkBuffer buffer, uint64_t size, uint64_t offset) {
  SpirvArg a;
  a.kind_ = Kind::Buffer;
  a.buffer_ = buffer;
  a.size_ = size;
  a.offset_ = offset;
  return a;
}
SpirvArg SpirvArg::image(VkImageView view, VkImageLayout layout) {
  SpirvArg a;
  a.kind_ = Kind::Image;
  a.view_ = view;
  a.layout_ = layout;
  return a;
}
SpirvArg SpirvArg::sampler(VkSampler sampler) {
  SpirvArg a;
  a.kind_ = Kind::Sampler;
  a.sampler_ = sampler;
  return a;
}
SpirvArg SpirvArg::image_sampler(VkImageView view, VkSampler sampler, VkImageLayout layout) {
  SpirvArg a;
  a.kind_ = Kind::ImageSampler;
  a.view_ = view;
  a.sampler_ = sampler;
  a.layout_ = layout;
  return a;
}

std::string SpirvArg::describe() const {
  switch (kind_) {
    case Kind::Scalar: return std::string(to_string(scalar_)) + " scalar " + scalar_text(scalar_, bits_);
    case Kind::Bytes: return std::to_string(bytes_.size()) + " bytes";
    case Kind::Buffer: return "buffer of " + std::to_string(size_) + " bytes";
    case Kind::Image: return "image";
    case Kind::Sampler: return "sampler";
    case Kind::ImageSampler: return "image with sampler";
  }
  return "?";
}

// -------------------------------------------------------------- SpirvBindings

SpirvBindings::SpirvBindings(SpirvBindings&& other) noexcept { *this = std::move(other); }
SpirvBindings& SpirvBindings::operator=(SpirvBindings&& other) noexcept {
  if (this != &other) {
    release();
    state_ = std::move(other.state_);
    pool_ = std::exchange(other.pool_, VK_NULL_HANDLE);
    sets_ = std::move(other.sets_);
    uniforms_ = std::move(other.uniforms_);
    other.sets_.clear();
    other.uniforms_.clear();
  }
  return *this;
}
SpirvBindings::~SpirvBindings() { release(); }

void SpirvBindings::release() {
  if (!state_) return;
  DeviceState* d = state_->device;
  auto state = state_;  // keeps the pool alive until the deferred free runs
  d->destroy_later([d, state, pool = pool_, sets = sets_, uniforms = uniforms_]() mutable {
    if (!sets.empty()) d->vk.vkFreeDescriptorSets(d->device, pool, uint32_t(sets.size()), sets.data());
    for (RawBuffer& b : uniforms) d->destroy_raw_buffer(b);
  });
  state_.reset();
  sets_.clear();
  uniforms_.clear();
}

// ---------------------------------------------------------------- SpirvKernel

SpirvKernel::SpirvKernel(SpirvKernel&&) noexcept = default;
SpirvKernel& SpirvKernel::operator=(SpirvKernel&&) noexcept = default;
SpirvKernel::~SpirvKernel() = default;

const KernelInterface& SpirvKernel::interface() const { return state_->interface; }

Result<SpirvKernel> SpirvKernel::create(DeviceState& device, std::span<const uint32_t> words,
                                        const std::string& entry) {
  WASMGPU_ASSIGN_OR_RETURN(reflect::SpirvReflection reflection, reflect::reflect_spirv(words));
  std::string names;
  for (KernelInterface& k : reflection.kernels) {
    if (k.name == entry || (entry.empty() && reflection.kernels.size() == 1))
      return create(device, words, std::move(k));
    names += (names.empty() ? "'" : ", '") + k.name + "'";
  }
  if (entry.empty())
    return make_error(ErrorCode::InvalidArgument, "the SPIR-V module has " + std::to_string(reflection.kernels.size()) +
                                                      " compute entry points (" + names + "); name one");
  return make_error(ErrorCode::NotFound,
                    "the SPIR-V module has no compute entry point '" + entry + "' (it has " + names + ")");
}

Result<SpirvKernel> SpirvKernel::create(DeviceState& device, std::span<const uint32_t> words,
                                        KernelInterface interface) {
  WASMGPU_TRY(device.ready());
  auto state = std::make_shared<detail::SpirvKernelState>();
  DeviceState& d = device;
  const std::string kernel = "kernel '" + interface.name + "'";

  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(d.physical_device, &properties);
  state->limits = properties.limits;

  if (interface.push_constant_size > state->limits.maxPushConstantsSize)
    return make_error(ErrorCode::Unsupported, kernel + " has " + std::to_string(interface.push_constant_size) +
                                                  " bytes of push constants; the device allows " +
                                                  std::to_string(state->limits.maxPushConstantsSize));
  if (interface.shared_memory_bytes > d.info.limits.max_shared_memory_bytes && d.info.limits.max_shared_memory_bytes)
    return make_error(ErrorCode::Unsupported, kernel + " declares " + format_bytes(interface.shared_memory_bytes) +
                                                  " of shared memory; the device allows " +
                                                  format_bytes(d.info.limits.max_shared_memory_bytes));

  // Everything below is owned by `state` from here on: its destructor
  // destroys what was created when a later step fails.
  state->device = &d;
  ++d.live_children;
  state->interface = std::move(interface);
  const KernelInterface& iface = state->interface;

  VkShaderModuleCreateInfo module_info{};

  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = words.size() * 4;
  module_info.pCode = words.data();
  WASMGPU_TRY(
      d.check("vkCreateShaderModule", d.vk.vkCreateShaderModule(d.device, &module_info, nullptr, &state->shader)));

  uint32_t set_count = 0;
  std::map<VkDescriptorType, uint32_t> type_counts;
  for (const Param& p : iface.params)
    if (p.set) {
      set_count = std::max(set_count, *p.set + 1);
      ++type_counts[descriptor_type(p.kind)];
    }
  if (set_count > state->limits.maxBoundDescriptorSets)
    return make_error(ErrorCode::Unsupported, kernel + " uses descriptor set " + std::to_string(set_count - 1) +
                                                  "; the device binds " +
                                                  std::to_string(state->limits.maxBoundDescriptorSets) + " sets");
  state->set_used.assign(set_count, false);
  for (uint32_t s = 0; s < set_count; ++s) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const Param& p : iface.params) {
      if (!p.set || *p.set != s) continue;
      VkDescriptorSetLayoutBinding b{};
      b.binding = *p.binding;
      b.descriptorType = descriptor_type(p.kind);
      b.descriptorCount = 1;
      b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
      bindings.push_back(b);
    }
    state->set_used[s] = !bindings.empty();
    VkDescriptorSetLayoutCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    info.bindingCount = uint32_t(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    WASMGPU_TRY(
        d.check("vkCreateDescriptorSetLayout", d.vk.vkCreateDescriptorSetLayout(d.device, &info, nullptr, &layout)));
    state->set_layouts.push_back(layout);
  }
  for (auto [type, count] : type_counts) state->pool_sizes.push_back({type, count * kSetsPerPool});

  state->push_size = uint32_t(round_up(iface.push_constant_size, 4));
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, state->push_size};
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = uint32_t(state->set_layouts.size());
  layout_info.pSetLayouts = state->set_layouts.data();
  layout_info.pushConstantRangeCount = state->push_size ? 1 : 0;
  layout_info.pPushConstantRanges = &range;
  WASMGPU_TRY(d.check("vkCreatePipelineLayout",
                      d.vk.vkCreatePipelineLayout(d.device, &layout_info, nullptr, &state->pipeline_layout)));

  SpirvKernel result(std::move(state));
  // Creating the default pipeline now reports shader problems at load time.
  Result<std::array<uint32_t, 3>> size = result.workgroup_size(std::nullopt);
  if (!size.ok()) {
    // The shader's own size, past the device's limits: no argument was wrong.
    Error error = size.take_error();
    error.code = ErrorCode::Unsupported;
    return error;
  }
  WASMGPU_TRY(result.pipeline(*size, {}));
  return result;
}

std::array<uint32_t, 3> SpirvKernel::default_workgroup_size() const {
  std::array<uint32_t, 3> size = interface().workgroup_size_default;
  if (interface().workgroup_size_spec_ids[0])
    size[0] = std::min(kDefaultWorkgroupSize, state_->limits.maxComputeWorkGroupSize[0]);
  return size;
}

Result<std::array<uint32_t, 3>> SpirvKernel::workgroup_size(
    const std::optional<std::array<uint32_t, 3>>& requested) const {
  const KernelInterface& iface = interface();
  std::array<uint32_t, 3> size = iface.workgroup_size_default;
  auto text = [](const std::array<uint32_t, 3>& s) {
    return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
  };
  if (requested) {
    for (int d = 0; d < 3; ++d) {
      if (iface.workgroup_size_spec_ids[d]) {
        size[d] = (*requested)[d];
      } else if ((*requested)[d] != size[d]) {
        return make_error(ErrorCode::InvalidArgument,
                          "kernel '" + iface.name + "': the launch asks for workgroups of " + text(*requested) +
                              ", but the shader fixes dimension " + "xyz"[d] + " at " + std::to_string(size[d]) +
                              " (declared size " + text(iface.workgroup_size_default) + ")");
      }
    }
  }
  const VkPhysicalDeviceLimits& l = state_->limits;
  uint64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    if (size[d] == 0 || size[d] > l.maxComputeWorkGroupSize[d])
      return make_error(ErrorCode::InvalidArgument, "kernel '" + iface.name + "': workgroup size " + text(size) +
                                                        " is outside the device's limit " +
                                                        std::to_string(l.maxComputeWorkGroupSize[d]) + " in " +
                                                        "xyz"[d]);
    invocations *= size[d];
  }
  if (invocations > l.maxComputeWorkGroupInvocations)
    return make_error(ErrorCode::InvalidArgument, "kernel '" + iface.name + "': workgroup size " + text(size) +
                                                      " has " + std::to_string(invocations) +
                                                      " invocations; the device allows " +
                                                      std::to_string(l.maxComputeWorkGroupInvocations));
  return size;
}

Result<std::vector<const SpirvArg*>> SpirvKernel::bind(std::span<const SpirvArg> args) const {
  const KernelInterface& iface = interface();
  const std::string kernel = "kernel '" + iface.name + "'";
  auto signature = [&] {
    std::string text;
    for (size_t i = 0; i < iface.params.size(); ++i)
      text += (i ? ", " : "") + iface.params[i].name + ": " +
              (iface.params[i].kind == ParamKind::Scalar ? to_string(iface.params[i].scalar)
                                                         : to_string(iface.params[i].kind));
    return text;
  };
  std::vector<const SpirvArg*> bound(iface.params.size(), nullptr);
  size_t named = 0;
  for (const SpirvArg& a : args) named += !a.name().empty();
  if (named != 0 && named != args.size())
    return make_error(ErrorCode::InvalidArgument, kernel + ": give every argument by name or none (" +
                                                      std::to_string(named) + " of " + std::to_string(args.size()) +
                                                      " are named)");
  if (named == 0) {
    if (args.size() != iface.params.size())
      return make_error(ErrorCode::InvalidArgument, kernel + " takes " + std::to_string(iface.params.size()) +
                                                        " argument" + (iface.params.size() == 1 ? "" : "s") + " (" +
                                                        signature() + "), given " + std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i) bound[i] = &args[i];
  } else {
    for (const SpirvArg& a : args) {
      auto it =
          std::find_if(iface.params.begin(), iface.params.end(), [&](const Param& p) { return p.name == a.name(); });
      if (it == iface.params.end())
        return make_error(ErrorCode::InvalidArgument,
                          kernel + " has no parameter '" + a.name() + "' (it has " + signature() + ")");
      const size_t i = size_t(it - iface.params.begin());
      if (bound[i])
        return make_error(ErrorCode::InvalidArgument, kernel + ": parameter '" + a.name() + "' is given twice");
      bound[i] = &a;
    }
    for (size_t i = 0; i < bound.size(); ++i)
      if (!bound[i])
        return make_error(ErrorCode::InvalidArgument, kernel + ": no argument for parameter " + std::to_string(i) +
                                                          " (" + describe_param(iface.params[i]) + ")");
  }
  for (size_t i = 0; i < bound.size(); ++i) {
    const Param& p = iface.params[i];
    const SpirvArg& a = *bound[i];
    auto mismatch = [&](const std::string& why) {
      return make_error(ErrorCode::InvalidArgument,
                        kernel + ": argument " + std::to_string(i) + " for " + describe_param(p) + ": " + why);
    };
    using K = SpirvArg::Kind;
    switch (p.kind) {
      case ParamKind::Scalar:
        if (a.kind() == K::Bytes) {
          if (a.data().size() != p.size)
            return mismatch("expects " + std::to_string(p.size) + " bytes, given " + std::to_string(a.data().size()));
          break;
        }
        if (a.kind() != K::Scalar)
          return mismatch("expects a " + std::string(to_string(p.scalar)) + " scalar, given " + a.describe());
        if (a.scalar_type() == p.scalar) break;
        if (is_integer(p.scalar) && is_integer(a.scalar_type())) {
          if (!convert_integer(a.scalar_type(), a.bits(), p.scalar))
            return mismatch("the value " + scalar_text(a.scalar_type(), a.bits()) + " does not fit in " +
                            to_string(p.scalar));
          break;
        }
        return mismatch("expects a " + std::string(to_string(p.scalar)) + " scalar, given " + a.describe());
      case ParamKind::Bytes:
        if (a.kind() != K::Bytes)
          return mismatch("expects " + std::to_string(p.size) + " bytes (" + p.element_type + "), given " +
                          a.describe());
        if (a.data().size() < p.size || a.data().size() > round_up(p.size, 16))
          return mismatch("expects " + std::to_string(p.size) + " bytes (" + p.element_type + "), given " +
                          std::to_string(a.data().size()));
        break;
      case ParamKind::UniformBuffer:
        if (a.kind() == K::Bytes) {
          if (a.data().size() < p.size || a.data().size() > round_up(p.size, 16))
            return mismatch("expects a value of " + std::to_string(p.size) + " bytes (" + p.element_type + "), given " +
                            std::to_string(a.data().size()) + " bytes");
          break;
        }
        [[fallthrough]];
      case ParamKind::Buffer: {
        if (a.kind() != K::Buffer)
          return mismatch(std::string("expects a buffer") + (p.kind == ParamKind::UniformBuffer ? " or a value" : "") +
                          ", given " + a.describe());
        if (a.vk_buffer() == VK_NULL_HANDLE) return mismatch("the buffer is null (moved from or destroyed?)");
        // The fixed part of the block: everything before a runtime array.
        const uint64_t fixed = p.layout ? p.layout->size : p.size;
        if (a.buffer_size() < std::max<uint64_t>(fixed, 1))
          return mismatch("the buffer is " + std::to_string(a.buffer_size()) + " bytes, smaller than the " +
                          std::to_string(std::max<uint64_t>(fixed, 1)) + " bytes of block '" +
                          (p.layout ? p.layout->name : p.element_type) + "'");
        const uint64_t align = p.kind == ParamKind::Buffer ? state_->limits.minStorageBufferOffsetAlignment
                                                           : state_->limits.minUniformBufferOffsetAlignment;
        if (a.buffer_offset() % align != 0)
          return mismatch("offset " + std::to_string(a.buffer_offset()) + " is not a multiple of the device's " +
                          std::to_string(align) + "-byte buffer offset alignment");
        break;
      }
      case ParamKind::StorageImage:
        if (a.kind() != K::Image) return mismatch("expects a storage image, given " + a.describe());
        if (a.layout() != VK_IMAGE_LAYOUT_GENERAL) return mismatch("a storage image must be in layout GENERAL");
        if (a.view() == VK_NULL_HANDLE) return mismatch("the image view is null");
        break;
      case ParamKind::SampledImage:
        if (a.kind() != K::Image) return mismatch("expects a sampled image, given " + a.describe());
        if (a.view() == VK_NULL_HANDLE) return mismatch("the image view is null");
        break;
      case ParamKind::Sampler:
        if (a.kind() != K::Sampler) return mismatch("expects a sampler, given " + a.describe());
        if (a.vk_sampler() == VK_NULL_HANDLE) return mismatch("the sampler is null");
        break;
      case ParamKind::CombinedImageSampler:
        if (a.kind() != K::ImageSampler) return mismatch("expects an image with a sampler, given " + a.describe());
        if (a.view() == VK_NULL_HANDLE || a.vk_sampler() == VK_NULL_HANDLE)
          return mismatch("the image view or sampler is null");
        break;
    }
  }
  return bound;
}

Result<VkPipeline> SpirvKernel::pipeline(const std::array<uint32_t, 3>& size,
                                         const std::map<uint32_t, uint64_t>& specs) {
  const KernelInterface& iface = interface();
  DeviceState& d = *state_->device;
  // Spec values: the workgroup size's, then the launch's.
  std::map<uint32_t, std::pair<uint64_t, uint32_t>> values;  // id -> bits, bytes
  for (int dim = 0; dim < 3; ++dim)
    if (iface.workgroup_size_spec_ids[dim]) values[*iface.workgroup_size_spec_ids[dim]] = {size[dim], 4};
  for (auto [id, bits] : specs) {
    auto it = std::find_if(iface.spec_constants.begin(), iface.spec_constants.end(),
                           [&](const SpecConstant& s) { return s.id == id; });
    if (it == iface.spec_constants.end())
      return make_error(ErrorCode::InvalidArgument,
                        "kernel '" + iface.name + "' has no specialization constant with SpecId " + std::to_string(id));
    if (values.count(id))
      return make_error(ErrorCode::InvalidArgument,
                        "kernel '" + iface.name + "': specialization constant " + std::to_string(id) +
                            " is part of the workgroup size; give the size through the launch");
    values[id] = {bits, scalar_bytes(it->type)};
  }
  std::vector<uint64_t> key{size[0], size[1], size[2]};
  for (auto& [id, v] : values) {
    key.push_back(id);
    key.push_back(v.first);
  }
  if (auto it = state_->pipelines.find(key); it != state_->pipelines.end()) return it->second;

  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint8_t> data;
  for (auto& [id, v] : values) {
    entries.push_back({id, uint32_t(data.size()), v.second});
    data.resize(data.size() + v.second);
    std::memcpy(data.data() + data.size() - v.second, &v.first, v.second);  // little-endian
  }
  VkSpecializationInfo spec_info{uint32_t(entries.size()), entries.data(), data.size(), data.data()};
  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = state_->shader;
  info.stage.pName = iface.name.c_str();
  info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec_info;
  info.layout = state_->pipeline_layout;
  info.flags = pipeline_statistics_flags(d);
  VkPipeline pipeline = VK_NULL_HANDLE;
  const auto started = std::chrono::steady_clock::now();
  WASMGPU_TRY(
      d.check("vkCreateComputePipelines for kernel '" + iface.name + "'",
              d.vk.vkCreateComputePipelines(d.device, d.pipeline_cache.handle(), 1, &info, nullptr, &pipeline)));
  state_->pipelines.emplace(key, pipeline);
  print_pipeline_statistics(d, pipeline, iface.name);
  // The persisted pipeline cache (docs/caching.md) serves foreign SPIR-V too.
  ++d.cache_stats.pipelines_created;
  d.cache_stats.pipeline_create_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  d.pipeline_cache.pipeline_created();
  return pipeline;
}

Result<SpirvBindings> SpirvKernel::record(VkCommandBuffer cmd, const SpirvLaunch& launch,
                                          std::span<const SpirvArg> args) {
  const KernelInterface& iface = interface();
  DeviceState& d = *state_->device;
  WASMGPU_TRY(d.ready());
  WASMGPU_ASSIGN_OR_RETURN(std::vector<const SpirvArg*> bound, bind(args));
  WASMGPU_ASSIGN_OR_RETURN(auto size, workgroup_size(launch.workgroup_size));
  for (int dim = 0; dim < 3; ++dim)
    if (launch.groups[dim] == 0)
      return make_error(ErrorCode::InvalidArgument,
                        "kernel '" + iface.name + "': the workgroup count in " + "xyz"[dim] + " must be at least 1");
  for (int dim = 0; dim < 3; ++dim)
    if (launch.groups[dim] > state_->limits.maxComputeWorkGroupCount[dim])
      return make_error(ErrorCode::InvalidArgument, "kernel '" + iface.name +
                                                        "': " + std::to_string(launch.groups[dim]) + " workgroups in " +
                                                        "xyz"[dim] + " exceed the device's limit of " +
                                                        std::to_string(state_->limits.maxComputeWorkGroupCount[dim]));
  WASMGPU_ASSIGN_OR_RETURN(VkPipeline pipeline, this->pipeline(size, launch.spec_constants));

  SpirvBindings bindings;
  bindings.state_ = state_;
  // Descriptor sets, from the newest pool, or a new pool when it is full.
  std::vector<VkDescriptorSetLayout> layouts;
  std::vector<uint32_t> set_numbers;
  for (uint32_t s = 0; s < state_->set_layouts.size(); ++s)
    if (state_->set_used[s]) {
      layouts.push_back(state_->set_layouts[s]);
      set_numbers.push_back(s);
    }
  if (!layouts.empty()) {
    bindings.sets_.resize(layouts.size());
    VkResult result = VK_ERROR_OUT_OF_POOL_MEMORY;
    if (!state_->pools.empty()) {
      VkDescriptorSetAllocateInfo alloc{};
      alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
      alloc.descriptorPool = state_->pools.back();
      alloc.descriptorSetCount = uint32_t(layouts.size());
      alloc.pSetLayouts = layouts.data();
      result = d.vk.vkAllocateDescriptorSets(d.device, &alloc, bindings.sets_.data());
    }
    if (result == VK_ERROR_OUT_OF_POOL_MEMORY || result == VK_ERROR_FRAGMENTED_POOL) {
      VkDescriptorPoolCreateInfo pool_info{};
      pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
      pool_info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
      pool_info.maxSets = kSetsPerPool * uint32_t(layouts.size());
      pool_info.poolSizeCount = uint32_t(state_->pool_sizes.size());
      pool_info.pPoolSizes = state_->pool_sizes.data();
      VkDescriptorPool pool = VK_NULL_HANDLE;
      WASMGPU_TRY(d.check("vkCreateDescriptorPool", d.vk.vkCreateDescriptorPool(d.device, &pool_info, nullptr, &pool)));
      state_->pools.push_back(pool);
      VkDescriptorSetAllocateInfo alloc{};
      alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
      alloc.descriptorPool = pool;
      alloc.descriptorSetCount = uint32_t(layouts.size());
      alloc.pSetLayouts = layouts.data();
      result = d.vk.vkAllocateDescriptorSets(d.device, &alloc, bindings.sets_.data());
    }
    if (result != VK_SUCCESS) {
      bindings.sets_.clear();
      return d.fail("vkAllocateDescriptorSets", result);
    }
    bindings.pool_ = state_->pools.back();
  }

  // Descriptor writes; the info structs must stay put until the update.
  std::vector<VkWriteDescriptorSet> writes;
  std::vector<VkDescriptorBufferInfo> buffer_infos;
  std::vector<VkDescriptorImageInfo> image_infos;
  buffer_infos.reserve(iface.params.size());
  image_infos.reserve(iface.params.size());
  std::vector<uint8_t> push(state_->push_size, 0);
  for (size_t i = 0; i < iface.params.size(); ++i) {
    const Param& p = iface.params[i];
    const SpirvArg& a = *bound[i];
    if (p.push_offset) {
      if (a.kind() == SpirvArg::Kind::Scalar) {
        uint64_t bits = a.bits();
        if (a.scalar_type() != p.scalar) bits = *convert_integer(a.scalar_type(), a.bits(), p.scalar);
        std::memcpy(push.data() + *p.push_offset, &bits, scalar_bytes(p.scalar));
      } else {
        std::memcpy(push.data() + *p.push_offset, a.data().data(), p.size);
      }
      continue;
    }
    if (!is_descriptor(p.kind)) continue;
    VkWriteDescriptorSet w{};
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    const size_t set_index = size_t(std::find(set_numbers.begin(), set_numbers.end(), *p.set) - set_numbers.begin());
    w.dstSet = bindings.sets_[set_index];
    w.dstBinding = *p.binding;
    w.descriptorCount = 1;
    w.descriptorType = descriptor_type(p.kind);
    switch (p.kind) {
      case ParamKind::Buffer:
      case ParamKind::UniformBuffer: {
        VkDescriptorBufferInfo info{};
        if (a.kind() == SpirvArg::Kind::Bytes) {
          // A uniform value: its own small host-visible buffer.
          WASMGPU_ASSIGN_OR_RETURN(
              RawBuffer raw,
              d.create_raw_buffer(round_up(p.size, 16), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryKind::Host));
          std::memset(raw.mapped, 0, raw.size);
          std::memcpy(raw.mapped, a.data().data(), std::min<size_t>(a.data().size(), raw.size));
          info = {raw.buffer, 0, raw.size};
          bindings.uniforms_.push_back(raw);
        } else {
          uint64_t range = a.buffer_size();
          if (p.kind == ParamKind::UniformBuffer)
            range = std::min<uint64_t>(range, state_->limits.maxUniformBufferRange);
          else
            range = std::min<uint64_t>(range, state_->limits.maxStorageBufferRange);
          info = {a.vk_buffer(), a.buffer_offset(), range};
        }
        buffer_infos.push_back(info);
        w.pBufferInfo = &buffer_infos.back();
        break;
      }
      default: {
        VkDescriptorImageInfo info{};
        info.imageView = p.kind == ParamKind::Sampler ? VK_NULL_HANDLE : a.view();
        info.imageLayout = p.kind == ParamKind::Sampler ? VK_IMAGE_LAYOUT_UNDEFINED : a.layout();
        info.sampler = (p.kind == ParamKind::Sampler || p.kind == ParamKind::CombinedImageSampler) ? a.vk_sampler()
                                                                                                   : VK_NULL_HANDLE;
        image_infos.push_back(info);
        w.pImageInfo = &image_infos.back();
        break;
      }
    }
    writes.push_back(w);
  }
  if (!writes.empty()) d.vk.vkUpdateDescriptorSets(d.device, uint32_t(writes.size()), writes.data(), 0, nullptr);

  auto bind = [&](VkCommandBuffer into) {
    for (size_t i = 0; i < set_numbers.size(); ++i)
      d.vk.vkCmdBindDescriptorSets(into, VK_PIPELINE_BIND_POINT_COMPUTE, state_->pipeline_layout, set_numbers[i], 1,
                                   &bindings.sets_[i], 0, nullptr);
    if (!push.empty())
      d.vk.vkCmdPushConstants(into, state_->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(push.size()),
                              push.data());
  };
  // The pipeline's first dispatch: where the driver compiles then (lavapipe),
  // a warm-up with these bindings compiles it now, in its own submission and
  // under the compile timeout, so that the caller's wait counts only the
  // kernel. It needs real descriptor sets (a shader's bindings must be valid
  // at any dispatch), hence here rather than at pipeline creation.
  if (state_->warmed.insert(pipeline).second)
    WASMGPU_TRY(warm_up_pipeline(d, "kernel '" + iface.name + "'", pipeline, bind));

  d.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  bind(cmd);
  d.vk.vkCmdDispatch(cmd, launch.groups[0], launch.groups[1], launch.groups[2]);
  return bindings;
}

Status SpirvKernel::launch(const SpirvLaunch& launch, std::span<const SpirvArg> args,
                           std::chrono::nanoseconds timeout) {
  DeviceState& d = *state_->device;
  // Check everything before taking the command buffer.
  WASMGPU_TRY(bind(args));
  WASMGPU_TRY(workgroup_size(launch.workgroup_size));
  WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, d.begin());
  constexpr VkPipelineStageFlags kStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  memory_barrier(d, cmd, kStages | VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT);
  auto recorded = record(cmd, launch, args);
  if (!recorded) {
    // End the half-recorded buffer so the device's next begin() starts clean.
    d.vk.vkEndCommandBuffer(cmd);
    d.vk.vkResetCommandPool(d.device, d.command_pool, 0);
    return recorded.take_error();
  }
  memory_barrier(d, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 kStages | VK_PIPELINE_STAGE_HOST_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
  return d.submit_and_wait("kernel '" + interface().name + "'", timeout);
}

}  // namespace wasmgpu::runtime
