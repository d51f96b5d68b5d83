// Internal: a Device's Vulkan pipeline cache, persisted in the cache
// directory (docs/caching.md). The SPIR-V cache saves the wasm compile; this
// saves the driver's own compile of the SPIR-V, as far as the driver keeps
// it in a VkPipelineCache.
//
// One file per device and driver build: pipelines/<vendor>-<device>-<driver
// version>-<pipelineCacheUUID>.bin. Loaded when the Device is created and
// only used when the header the driver wrote (VkPipelineCacheHeaderVersionOne:
// vendor, device, pipelineCacheUUID) matches the device. Saved when the
// Device is destroyed, on Device::save_caches(), and after pipeline creation
// when the last save is a minute old; a save first merges what other
// processes saved meanwhile (vkMergePipelineCaches), then replaces the file
// atomically.
#pragma once

#include <volk.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "runtime/device_info.h"
#include "runtime/disk_cache.h"
#include "support/result.h"
#include "support/sha256.h"

namespace wasmgpu::runtime {

struct CacheStats;

// "10de-2335-91c0a000-<uuid hex>.bin"
std::string pipeline_cache_file_name(const DeviceInfo& info);
Sha256Digest pipeline_cache_key(const DeviceInfo& info);
// Whether `data` starts with a version-one header for this device.
bool pipeline_cache_data_matches(std::span<const uint8_t> data, const DeviceInfo& info);

class PipelineCache {
 public:
  PipelineCache() = default;
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  // Creates the VkPipelineCache (empty without `disk` or a valid file).
  Status create(VkDevice device, const VolkDeviceTable& vk, const DeviceInfo& info, std::shared_ptr<DiskCache> disk,
                CacheStats& stats);
  VkPipelineCache handle() const { return cache_; }

  // Counts a created pipeline and saves when the last save is over a minute old.
  void pipeline_created();
  // Merges with the file and writes it, when pipelines were created since
  // the last load or save. Failures count in CacheStats, nothing more.
  void save();
  // save(), then destroys the VkPipelineCache. Before vkDestroyDevice.
  void destroy();

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  const VolkDeviceTable* vk_ = nullptr;
  const DeviceInfo* info_ = nullptr;
  std::shared_ptr<DiskCache> disk_;
  CacheStats* stats_ = nullptr;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  uint64_t unsaved_pipelines_ = 0;
  // Checksum of the driver data in the file as last read or written: a file
  // that differs was written by another process and is merged before saving.
  Sha256Digest file_data_sha256_{};
  std::chrono::steady_clock::time_point last_save_;
};

}  // namespace wasmgpu::runtime
