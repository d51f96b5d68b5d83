#include "runtime/kernel.h"

#include <array>
#include <chrono>

#include "abi/launch_abi.h"
#include "abi/image_abi.h"
#include "abi/launch_proof.h"
#include "runtime/bindless.h"
#include "runtime/device.h"
#include "runtime/device_state.h"
#include "runtime/pipeline_statistics.h"
#include "runtime/pipeline_warmup.h"
#include "runtime/vk_util.h"

namespace wasmgpu::runtime {

// The float controls the compiler asks for (spirv/compiler.cpp): RTE in
// both modes, SignedZeroInfNanPreserve in exact mode, for 32 bits and for 64
// where the kernel uses f64. Names what the device lacks, or "".
static std::string missing_float_controls(const spirv::KernelInfo& info, const DeviceFeatures& features) {
  std::string missing;
  auto need = [&](bool present, const char* property) {
    if (present) return;
    missing += missing.empty() ? "" : ", ";
    missing += property;
  };
  const bool exact = info.float_mode == spirv::FloatMode::Exact;
  need(features.rounding_rte_f32, "shaderRoundingModeRTEFloat32");
  if (exact) need(features.preserve_specials_f32, "shaderSignedZeroInfNanPreserveFloat32");
  if (info.uses_float64) {
    need(features.rounding_rte_f64, "shaderRoundingModeRTEFloat64");
    if (exact) need(features.preserve_specials_f64, "shaderSignedZeroInfNanPreserveFloat64");
  }
  return missing;
}

Result<Kernel> Kernel::create(Device& device, spirv::CompiledKernel kernel, const Buffer* linear_memory) {
  return create(device.state(), std::move(kernel), linear_memory);
}

Result<Kernel> Kernel::create(DeviceState& device, spirv::CompiledKernel kernel, const Buffer* linear_memory) {
  return create(device, std::move(kernel), linear_memory, 0);
}

Result<Kernel> Kernel::create(DeviceState& device, spirv::CompiledKernel kernel, const Buffer* linear_memory,
                              VkDeviceAddress instance_state) {
  WASMGPU_TRY(device.ready());
  const spirv::KernelInfo& info = kernel.info;
  const std::string name = "kernel '" + info.export_name + "'";
  if (info.uses_float64 && !device.float64_enabled)
    return make_error(ErrorCode::Unsupported,
                      name + " uses f64, but Vulkan device '" + device.info.name + "' does not support shaderFloat64");
  if (std::string missing = missing_float_controls(info, device.info.features); !missing.empty())
    return make_error(ErrorCode::Unsupported, name + " (" +
                                                  (info.float_mode == spirv::FloatMode::Exact ? "exact" : "fast") +
                                                  " float mode) needs " + missing + ", which Vulkan device '" +
                                                  device.info.name + "' does not offer");
  if (info.memory_bytes > abi::kBufferAddressBase)
    return make_error(ErrorCode::Unsupported,
                      name + " needs " + format_bytes(info.memory_bytes) + " of linear memory; at most " +
                          format_bytes(abi::kBufferAddressBase) + " fit below the buffers in the wasm address space");
  if (info.memory_bytes > 0) {
    if (!linear_memory)
      return make_error(ErrorCode::InvalidArgument,
                        name + " needs " + format_bytes(info.memory_bytes) + " of linear memory, but none was given");
    if (linear_memory->device_state() != &device)
      return make_error(ErrorCode::InvalidArgument, name + ": its linear memory belongs to another Device");
    if (linear_memory->size() < info.memory_bytes)
      return make_error(ErrorCode::InvalidArgument, name + " needs " + format_bytes(info.memory_bytes) +
                                                        " of linear memory; the buffer given has " +
                                                        format_bytes(linear_memory->size()));
  }
  if (info.stack_slot_size % 16 != 0)
    return make_error(ErrorCode::Internal,
                      name + ": stack slot size " + std::to_string(info.stack_slot_size) + " is not a multiple of 16");
  if (kernel.words.empty()) return make_error(ErrorCode::Internal, name + ": no SPIR-V");
  if (info.uses_images) {
    Result<BindlessSet*> set = bindless_set(device);
    if (!set.ok()) {
      Error error = set.take_error();
      error.message = name + " uses images, but " + error.message;
      return error;
    }
  }
  if (info.uses_instance_state && instance_state == 0)
    return make_error(ErrorCode::InvalidArgument,
                      name +
                          " keeps module instance state (memory.grow, mutable globals, ...); "
                          "load it through runtime::Module, which creates that state");

  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = kernel.words.size() * sizeof(uint32_t);
  module_info.pCode = kernel.words.data();
  VkShaderModule shader = VK_NULL_HANDLE;
  WASMGPU_TRY(device.check("vkCreateShaderModule for " + name,
                           device.vk.vkCreateShaderModule(device.device, &module_info, nullptr, &shader)));
  Kernel result(&device, shader, std::move(kernel.info), linear_memory);
  result.instance_state_ = instance_state;
  return result;
}

Kernel::Kernel(DeviceState* device, VkShaderModule shader, spirv::KernelInfo info, const Buffer* linear_memory)
    : device_(device), shader_(shader), info_(std::move(info)), memory_(linear_memory) {
  ++device_->live_children;
}

Kernel::Kernel(Kernel&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      shader_(std::exchange(other.shader_, VK_NULL_HANDLE)),
      pipelines_(std::move(other.pipelines_)),
      info_(std::move(other.info_)),
      memory_(std::exchange(other.memory_, nullptr)),
      instance_state_(std::exchange(other.instance_state_, 0)),
      shared_global_write_(std::move(other.shared_global_write_)) {
  other.pipelines_.clear();
}

Kernel& Kernel::operator=(Kernel&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    shader_ = std::exchange(other.shader_, VK_NULL_HANDLE);
    pipelines_ = std::move(other.pipelines_);
    other.pipelines_.clear();
    info_ = std::move(other.info_);
    memory_ = std::exchange(other.memory_, nullptr);
    instance_state_ = std::exchange(other.instance_state_, 0);
    shared_global_write_ = std::move(other.shared_global_write_);
  }
  return *this;
}

Kernel::~Kernel() { release(); }

void Kernel::release() {
  if (!device_) return;
  DeviceState* device = device_;
  device->destroy_later([device, shader = shader_, pipelines = std::move(pipelines_)] {
    for (const auto& [size, pipeline] : pipelines) device->vk.vkDestroyPipeline(device->device, pipeline, nullptr);
    device->vk.vkDestroyShaderModule(device->device, shader, nullptr);
  });
  --device->live_children;
  device_ = nullptr;
  shader_ = VK_NULL_HANDLE;
  pipelines_.clear();
}

VkPipelineLayout Kernel::pipeline_layout() const {
  return info_.uses_images ? device_->bindless->pipeline_layout : device_->pipeline_layout;
}

Result<VkPipeline> Kernel::pipeline(uint32_t workgroup_size, uint32_t size_y, uint32_t size_z, uint32_t index_dims,
                                    bool may_overrun, uint32_t proven_params) {
  // One key per shape and specialization. launch() checks sizes against
  // device limits, which keep x < 2^12, y, z < 2^10; index_dims is 1 to 3.
  const std::pair<uint64_t, uint32_t> key{workgroup_size | (size_y - 1) << 12 | uint64_t(size_z - 1) << 22 |
                                              uint64_t(index_dims - 1) << 32 | uint64_t(may_overrun) << 34,
                                          proven_params};
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
  // Spec constants 0, 1, 2: the workgroup size; then the launch's
  // abi::index_dims, abi::kSpecMayOverrun and abi::kSpecProvenParams.
  constexpr uint32_t kCount = 6;
  const uint32_t values[kCount] = {workgroup_size, size_y, size_z, index_dims, may_overrun ? 1u : 0u, proven_params};
  const uint32_t ids[kCount] = {0, 1, 2, abi::kSpecIndexDims, abi::kSpecMayOverrun, abi::kSpecProvenParams};
  VkSpecializationMapEntry entries[kCount];
  for (uint32_t i = 0; i < kCount; ++i)
    entries[i] = VkSpecializationMapEntry{ids[i], uint32_t(i * sizeof(uint32_t)), sizeof(uint32_t)};
  VkSpecializationInfo specialization{};
  specialization.mapEntryCount = kCount;
  specialization.pMapEntries = entries;
  specialization.dataSize = sizeof values;
  specialization.pData = values;

  VkComputePipelineCreateInfo pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = shader_;
  pipeline_info.stage.pName = "main";
  pipeline_info.stage.pSpecializationInfo = &specialization;
  pipeline_info.layout = pipeline_layout();
  pipeline_info.flags = pipeline_statistics_flags(*device_);
  // Whether the driver found the pipeline in the (persisted) pipeline cache.
  VkPipelineCreationFeedback feedback{};
  VkPipelineCreationFeedback stage_feedback{};
  VkPipelineCreationFeedbackCreateInfo feedback_info{};
  feedback_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO;
  feedback_info.pPipelineCreationFeedback = &feedback;
  feedback_info.pipelineStageCreationFeedbackCount = 1;
  feedback_info.pPipelineStageCreationFeedbacks = &stage_feedback;
  if (device_->pipeline_feedback) pipeline_info.pNext = &feedback_info;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const auto started = std::chrono::steady_clock::now();
  WASMGPU_TRY(device_->check("vkCreateComputePipelines for kernel '" + info_.export_name + "'",
                             device_->vk.vkCreateComputePipelines(device_->device, device_->pipeline_cache.handle(), 1,
                                                                  &pipeline_info, nullptr, &pipeline)));
  pipelines_.emplace(key, pipeline);
  std::string label = info_.export_name;
  for (uint32_t p = 0; p < 32; ++p)  // the parameters proven at launch (abi/launch_proof.h)
    if (proven_params & (uint32_t(1) << p))
      label += (label.size() == info_.export_name.size() ? ", proven parameters " : " ") + std::to_string(p);
  print_pipeline_statistics(*device_, pipeline, label);
  ++device_->cache_stats.pipelines_created;
  if ((feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT) &&
      (feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT))
    ++device_->cache_stats.pipeline_cache_hits;
  device_->pipeline_cache.pipeline_created();
  // Where the driver compiles at the first dispatch (lavapipe), compile now,
  // under the compile timeout, so that no launch's timeout counts it. The
  // warm-up binds what launches bind: the image set, zero push constants
  // (nothing runs: the dispatch has no workgroups).
  WASMGPU_TRY(warm_up_pipeline(*device_, "kernel '" + info_.export_name + "'", pipeline, [&](VkCommandBuffer cmd) {
    const VkPipelineLayout layout = pipeline_layout();
    if (info_.uses_images)
      device_->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, abi::kImageSet, 1,
                                          &device_->bindless->set, 0, nullptr);
    const std::array<uint8_t, abi::kPushConstantsSize> push{};
    device_->vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, abi::kPushConstantsSize, push.data());
  }));
  device_->cache_stats.pipeline_create_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return pipeline;
}

}  // namespace wasmgpu::runtime
