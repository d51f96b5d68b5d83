#include "runtime/pipeline_cache.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/cache.h"

namespace wasmgpu::runtime {

namespace {

constexpr std::string_view kFolder = "pipelines";
// Saves between creation and destruction, for processes that never destroy
// their Device cleanly (they exit, are killed, or run for hours).
constexpr auto kSaveInterval = std::chrono::seconds(60);
// sizeof(VkPipelineCacheHeaderVersionOne)
constexpr size_t kHeaderOneSize = 32;

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // the header is in host byte order
  return v;
}

std::string hex(std::span<const uint8_t> bytes) {
  std::string text;
  char digits[3];
  for (uint8_t b : bytes) {
    std::snprintf(digits, sizeof digits, "%02x", b);
    text += digits;
  }
  return text;
}

}  // namespace

std::string pipeline_cache_file_name(const DeviceInfo& info) {
  char ids[40];
  std::snprintf(ids, sizeof ids, "%04x-%04x-%08x-", info.vendor_id, info.device_id, info.driver_version);
  return ids + hex(info.pipeline_cache_uuid) + ".bin";
}

Sha256Digest pipeline_cache_key(const DeviceInfo& info) {
  // The file name already says all of it; the key inside the entry makes a
  // renamed or copied file fail to load.
  return sha256("wasmgpu pipeline cache " + pipeline_cache_file_name(info));
}

bool pipeline_cache_data_matches(std::span<const uint8_t> data, const DeviceInfo& info) {
  if (data.size() < kHeaderOneSize) return false;
  const uint32_t header_size = read_u32(data.data());
  const uint32_t header_version = read_u32(data.data() + 4);
  return header_size >= kHeaderOneSize && header_size <= data.size() &&
         header_version == VK_PIPELINE_CACHE_HEADER_VERSION_ONE && read_u32(data.data() + 8) == info.vendor_id &&
         read_u32(data.data() + 12) == info.device_id &&
         std::memcmp(data.data() + 16, info.pipeline_cache_uuid.data(), VK_UUID_SIZE) == 0;
}

Status PipelineCache::create(VkDevice device, const VolkDeviceTable& vk, const DeviceInfo& info,
                             std::shared_ptr<DiskCache> disk, CacheStats& stats) {
  device_ = device;
  vk_ = &vk;
  info_ = &info;
  disk_ = std::move(disk);
  stats_ = &stats;
  last_save_ = std::chrono::steady_clock::now();
  // Without the disk cache there is no VkPipelineCache at all: "off" means
  // every pipeline is compiled from scratch.
  if (!disk_) return {};
  std::vector<uint8_t> initial;
  {
    DiskCache::ReadResult read =
        disk_->read(kFolder, pipeline_cache_file_name(info), CacheEntryKind::PipelineCache, pipeline_cache_key(info));
    if (read.status == DiskCache::ReadStatus::Hit && pipeline_cache_data_matches(read.payload, info)) {
      initial = std::move(read.payload);
      file_data_sha256_ = sha256(initial);
    } else if (read.status != DiskCache::ReadStatus::Missing) {
      stats.pipeline_cache_rejected = true;
    }
  }
  VkPipelineCacheCreateInfo create_info{};
  create_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  create_info.initialDataSize = initial.size();
  create_info.pInitialData = initial.empty() ? nullptr : initial.data();
  VkResult r = vk.vkCreatePipelineCache(device, &create_info, nullptr, &cache_);
  if (r != VK_SUCCESS && !initial.empty()) {
    // The driver may refuse data it cannot use; start empty rather than fail.
    stats.pipeline_cache_rejected = true;
    initial.clear();
    file_data_sha256_ = {};
    create_info.initialDataSize = 0;
    create_info.pInitialData = nullptr;
    r = vk.vkCreatePipelineCache(device, &create_info, nullptr, &cache_);
  }
  if (r != VK_SUCCESS) {
    cache_ = VK_NULL_HANDLE;
    Error error = make_error(ErrorCode::Vulkan, "vkCreatePipelineCache failed (" + std::to_string(int(r)) + ")");
    error.vk_result = int32_t(r);
    return error;
  }
  stats.pipeline_cache_loaded_bytes = initial.size();
  return {};
}

void PipelineCache::pipeline_created() {
  ++unsaved_pipelines_;
  if (disk_ && std::chrono::steady_clock::now() - last_save_ >= kSaveInterval) save();
}

void PipelineCache::save() {
  if (!disk_ || cache_ == VK_NULL_HANDLE || unsaved_pipelines_ == 0) return;
  last_save_ = std::chrono::steady_clock::now();
  const VolkDeviceTable& vk = *vk_;
  const std::string name = pipeline_cache_file_name(*info_);
  const Sha256Digest key = pipeline_cache_key(*info_);
  // Another process may have saved since we loaded: merge its pipelines in,
  // so that the last writer does not drop what the others added.
  DiskCache::ReadResult current = disk_->read(kFolder, name, CacheEntryKind::PipelineCache, key);
  if (current.status == DiskCache::ReadStatus::Hit && pipeline_cache_data_matches(current.payload, *info_) &&
      sha256(current.payload) != file_data_sha256_) {
    VkPipelineCacheCreateInfo create_info{};
    create_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
    create_info.initialDataSize = current.payload.size();
    create_info.pInitialData = current.payload.data();
    VkPipelineCache other = VK_NULL_HANDLE;
    if (vk.vkCreatePipelineCache(device_, &create_info, nullptr, &other) == VK_SUCCESS) {
      vk.vkMergePipelineCaches(device_, cache_, 1, &other);
      vk.vkDestroyPipelineCache(device_, other, nullptr);
    }
  }
  size_t size = 0;
  std::vector<uint8_t> data;
  // The size may grow between the two calls (VK_INCOMPLETE); retry then.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (vk.vkGetPipelineCacheData(device_, cache_, &size, nullptr) != VK_SUCCESS) return;
    data.resize(size);
    const VkResult r = vk.vkGetPipelineCacheData(device_, cache_, &size, data.data());
    if (r == VK_SUCCESS) break;
    if (r != VK_INCOMPLETE) return;
    size = 0;
  }
  data.resize(size);
  if (!pipeline_cache_data_matches(data, *info_)) return;  // nothing we could load again
  Status written = disk_->write(kFolder, name, CacheEntryKind::PipelineCache, key, data);
  if (written.ok()) {
    file_data_sha256_ = sha256(data);
    unsaved_pipelines_ = 0;
    ++stats_->pipeline_cache_saves;
  } else {
    ++stats_->cache_write_failures;
    stats_->last_write_failure = written.error().to_string();
  }
}

void PipelineCache::destroy() {
  if (cache_ == VK_NULL_HANDLE) return;
  save();
  vk_->vkDestroyPipelineCache(device_, cache_, nullptr);
  cache_ = VK_NULL_HANDLE;
}

}  // namespace wasmgpu::runtime
