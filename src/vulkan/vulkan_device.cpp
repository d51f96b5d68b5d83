// A Vulkan device behind the device interface.
#include "vulkan/vulkan_device.h"

#include "probe/device_probe.h"
#include "runtime/device_state.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "runtime/vk_util.h"
#include "vulkan/vulkan_buffer.h"
#include "vulkan/vulkan_command_list.h"
#include "vulkan/vulkan_image.h"
#include "vulkan/vulkan_module.h"
#include "vulkan/vulkan_spirv_kernel.h"

namespace wasmgpu::vulkan {

namespace {

runtime::ImageFormat runtime_format(device::ImageFormat format) {
  switch (format) {
    case device::ImageFormat::Rgba8Unorm: return runtime::ImageFormat::Rgba8Unorm;
    case device::ImageFormat::Rgba32Float: return runtime::ImageFormat::Rgba32Float;
    case device::ImageFormat::R32Float: return runtime::ImageFormat::R32Float;
  }
  return runtime::ImageFormat::Rgba8Unorm;
}

}  // namespace

device::DeviceDescription describe(const runtime::DeviceInfo& info) {
  device::DeviceDescription out;
  out.index = info.index;
  out.name = info.name;
  out.type = runtime::to_string(info.type);
  out.driver = info.driver_name + (info.driver_info.empty() ? "" : " " + info.driver_info);
  out.api_version = runtime::format_api_version(info.api_version);
  out.vendor_id = info.vendor_id;
  out.device_id = info.device_id;
  out.float64 = info.features.shader_float64;
  out.max_buffer_bytes =
      info.limits.max_buffer_size ? info.limits.max_buffer_size : info.limits.max_memory_allocation_size;
  out.max_workgroup_invocations = info.limits.max_workgroup_invocations;
  out.max_workgroup_size_x = info.limits.max_workgroup_size[0];
  out.device_local_memory_bytes = info.device_local_memory_bytes;
  out.max_workgroup_count_x = info.limits.max_workgroup_count[0];
  out.max_shared_memory_bytes = info.limits.max_shared_memory_bytes;
  out.subgroup_size = info.limits.subgroup_size;
  out.max_storage_buffer_range = info.limits.max_storage_buffer_range;
  out.max_allocation_bytes = info.limits.max_memory_allocation_size;
  out.int64 = info.features.shader_int64;
  out.descriptor_indexing = info.features.descriptor_indexing;
  out.unusable_reason = info.unusable_reason;
  out.summary = info.summary();
  return out;
}

VulkanDevice::VulkanDevice(runtime::Device device) : device_(std::move(device)) {
  description_ = describe(device_.info());
  description_.float64 = device_.float64_enabled();
}

Status VulkanDevice::ready() { return device_.state().ready(); }

Result<std::unique_ptr<device::BackendBuffer>> VulkanDevice::create_buffer(uint64_t bytes) {
  WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer buffer, device_.create_buffer(bytes));
  return std::unique_ptr<device::BackendBuffer>(std::make_unique<VulkanBuffer>(std::move(buffer)));
}

Result<std::unique_ptr<device::BackendBuffer>> VulkanDevice::create_staging_buffer(uint64_t bytes) {
  WASMGPU_ASSIGN_OR_RETURN(runtime::Buffer buffer, runtime::create_staging_buffer(device_.state(), bytes));
  return std::unique_ptr<device::BackendBuffer>(std::make_unique<VulkanBuffer>(std::move(buffer), true));
}

Result<std::unique_ptr<device::BackendImage>> VulkanDevice::create_image(const device::ImageDesc& desc) {
  runtime::ImageDesc runtime_desc;
  runtime_desc.width = desc.width;
  runtime_desc.height = desc.height;
  runtime_desc.depth = desc.depth;
  runtime_desc.three_d = desc.three_d;
  runtime_desc.format = runtime_format(desc.format);
  runtime_desc.storage = desc.storage;
  runtime_desc.sampled = desc.sampled;
  WASMGPU_ASSIGN_OR_RETURN(runtime::Image image, runtime::Image::create(device_.state(), runtime_desc));
  // The runtime's own description (it may settle the depth of a 2D image).
  device::ImageDesc created = desc;
  created.width = image.desc().width;
  created.height = image.desc().height;
  created.depth = image.desc().depth;
  created.three_d = image.desc().three_d;
  return std::unique_ptr<device::BackendImage>(std::make_unique<VulkanImage>(std::move(image), created));
}

Result<std::unique_ptr<device::BackendSampler>> VulkanDevice::create_sampler(const device::SamplerDesc& desc) {
  runtime::SamplerDesc runtime_desc;
  runtime_desc.filter = desc.filter == device::Filter::Linear ? runtime::Filter::Linear : runtime::Filter::Nearest;
  runtime_desc.address_mode = desc.address_mode == device::AddressMode::Repeat ? runtime::AddressMode::Repeat
                                                                               : runtime::AddressMode::ClampToEdge;
  WASMGPU_ASSIGN_OR_RETURN(runtime::Sampler sampler, runtime::Sampler::create(device_.state(), runtime_desc));
  return std::unique_ptr<device::BackendSampler>(std::make_unique<VulkanSampler>(std::move(sampler)));
}

Result<std::unique_ptr<device::BackendModule>> VulkanDevice::load_wasm(std::span<const uint8_t> bytes,
                                                                       const spirv::CompileOptions& options) {
  WASMGPU_ASSIGN_OR_RETURN(runtime::Module module, runtime::Module::load(device_, bytes, options));
  return std::unique_ptr<device::BackendModule>(std::make_unique<VulkanModule>(std::move(module)));
}

Result<std::unique_ptr<device::BackendModule>> VulkanDevice::load_wasm_with_globals(
    std::span<const uint8_t> bytes, const spirv::CompileOptions& options, std::span<const uint64_t> imported_globals) {
  WASMGPU_ASSIGN_OR_RETURN(runtime::Module module, runtime::Module::load(device_, bytes, options, imported_globals));
  return std::unique_ptr<device::BackendModule>(std::make_unique<VulkanModule>(std::move(module)));
}

Result<std::unique_ptr<device::BackendKernel>> VulkanDevice::create_spirv_kernel(std::span<const uint32_t> words,
                                                                                 const KernelInterface& interface) {
  return vulkan::create_spirv_kernel(device_.state(), words, interface);
}

Result<std::unique_ptr<device::BackendCommandList>> VulkanDevice::create_command_list() {
  WASMGPU_ASSIGN_OR_RETURN(std::unique_ptr<VulkanCommandList> list, VulkanCommandList::create(device_.state()));
  return std::unique_ptr<device::BackendCommandList>(std::move(list));
}

uint64_t VulkanDevice::recording_generation() const { return device_.state().mapping_generation; }

std::chrono::nanoseconds VulkanDevice::default_launch_timeout() const { return runtime::default_launch_timeout(); }

Result<device::SelftestReport> VulkanDevice::selftest(const device::SelftestOptions& options) {
  probe::ProbeOptions probe_options;
  probe_options.force = options.force;
  probe_options.progress = options.progress;
  WASMGPU_ASSIGN_OR_RETURN(probe::ProbeReport report, probe::run_device_probe(device_, probe_options));
  device::SelftestReport out;
  out.cache = report.cache;
  out.raw_float_controls = report.raw_float_controls;
  for (const probe::ProbeLine& l : report.lines)
    out.lines.push_back(device::SelftestLine{l.property, l.raw, probe::to_string(l.handling), l.how, l.correct, l.cases,
                                             l.forced, l.raw_detail, l.wasm_detail});
  return out;
}

device::CacheStats VulkanDevice::cache_stats() const {
  const runtime::CacheStats& s = device_.cache_stats();
  device::CacheStats out;
  out.directory = s.directory;
  out.disabled_reason = s.disabled_reason;
  out.spirv_compiles = s.spirv_compiles;
  out.spirv_cache_hits = s.spirv_cache_hits;
  out.spirv_cache_corrupt = s.spirv_cache_corrupt;
  out.spirv_compile_seconds = s.spirv_compile_seconds;
  out.spirv_cache_read_seconds = s.spirv_cache_read_seconds;
  out.cache_write_failures = s.cache_write_failures;
  out.last_write_failure = s.last_write_failure;
  out.pipeline_cache_loaded_bytes = s.pipeline_cache_loaded_bytes;
  out.pipeline_cache_rejected = s.pipeline_cache_rejected;
  out.pipelines_created = s.pipelines_created;
  out.pipeline_create_seconds = s.pipeline_create_seconds;
  out.pipeline_cache_hits = s.pipeline_cache_hits;
  out.pipeline_feedback = s.pipeline_feedback;
  return out;
}

std::optional<std::vector<uint8_t>> VulkanDevice::read_cached(std::string_view folder, const Sha256Digest& key) {
  const std::shared_ptr<runtime::DiskCache>& cache = device_.state().disk_cache;
  if (!cache) return std::nullopt;
  runtime::DiskCache::ReadResult read =
      cache->read(folder, to_hex(key) + ".bin", runtime::CacheEntryKind::ApiEntry, key);
  if (read.status != runtime::DiskCache::ReadStatus::Hit) return std::nullopt;
  return std::move(read.payload);
}

void VulkanDevice::write_cached(std::string_view folder, const Sha256Digest& key, std::span<const uint8_t> payload) {
  if (const std::shared_ptr<runtime::DiskCache>& cache = device_.state().disk_cache)
    (void)cache->write(folder, to_hex(key) + ".bin", runtime::CacheEntryKind::ApiEntry, key, payload);
}

}  // namespace wasmgpu::vulkan
