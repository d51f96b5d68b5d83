// What a device's on-disk caches did (docs/caching.md), as the API reports it
// (wasmgpu::CacheStats). Devices without caches report zeros.
#pragma once

#include <cstdint>
#include <string>

namespace wasmgpu::device {

struct CacheStats {
  std::string directory;  // empty when caching is off, and then:
  std::string disabled_reason;
  uint64_t spirv_compiles = 0;
  uint64_t spirv_cache_hits = 0;
  uint64_t spirv_cache_corrupt = 0;
  double spirv_compile_seconds = 0;
  double spirv_cache_read_seconds = 0;
  uint64_t cache_write_failures = 0;
  std::string last_write_failure;
  uint64_t pipeline_cache_loaded_bytes = 0;
  bool pipeline_cache_rejected = false;
  uint64_t pipelines_created = 0;
  double pipeline_create_seconds = 0;  // in the driver, warm-up included
  uint64_t pipeline_cache_hits = 0;
  bool pipeline_feedback = false;
};

}  // namespace wasmgpu::device
