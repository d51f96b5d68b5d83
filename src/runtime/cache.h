// The on-disk caches (docs/caching.md): where they live, whether they are
// used (CacheOptions, part of DeviceOptions) and what they did (CacheStats,
// Device::cache_stats()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wasmgpu::runtime {

struct CacheOptions {
  // false: compile every kernel and create every pipeline from scratch, read
  // and write nothing. The environment variable WASMGPU_CACHE=0 turns the
  // caches off as well, whatever this says.
  bool enabled = true;
  // The cache directory. Unset: WASMGPU_CACHE_DIR, else
  // $XDG_CACHE_HOME/wasmgpu, else $HOME/.cache/wasmgpu (none of them set:
  // no cache).
  std::optional<std::string> directory;
  // The directory is trimmed to about this many bytes, least recently used
  // entries first. Unset: WASMGPU_CACHE_MAX_SIZE, else 256 MiB.
  std::optional<uint64_t> max_bytes;
};

// What a Device's caches did since the Device was created.
struct CacheStats {
  // The cache directory; empty when caching is off, and then
  // `disabled_reason` says why.
  std::string directory;
  std::string disabled_reason;

  // wasm-to-SPIR-V compilations run for this Device: kernels, call shaders
  // and the one-time survey of a module's callable exports. Zero when every
  // one came from the cache.
  uint64_t spirv_compiles = 0;
  uint64_t spirv_cache_hits = 0;
  uint64_t spirv_cache_misses = 0;   // includes the corrupt ones
  uint64_t spirv_cache_corrupt = 0;  // entries that failed a check: ignored and rewritten
  uint64_t spirv_cache_writes = 0;
  // Wall time spent compiling wasm to SPIR-V, and reading, checking and
  // decoding cache entries (hits and misses).
  double spirv_compile_seconds = 0;
  double spirv_cache_read_seconds = 0;
  // Writes that failed (read-only or full disk): the run goes on uncached.
  uint64_t cache_write_failures = 0;
  std::string last_write_failure;

  // The Vulkan pipeline cache: bytes of driver data loaded when the Device
  // was created (0: none, or the file was rejected) and the pipelines created.
  uint64_t pipeline_cache_loaded_bytes = 0;
  bool pipeline_cache_rejected = false;  // a file was there but failed a check
  uint64_t pipeline_cache_saves = 0;
  uint64_t pipelines_created = 0;
  // Wall time in the driver creating those pipelines, with the warm-up
  // dispatch that makes drivers which compile at the first dispatch
  // (lavapipe) compile then: where a big kernel's time goes.
  double pipeline_create_seconds = 0;
  // Pipelines the driver reports it found in the pipeline cache
  // (VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT);
  // meaningful only when `pipeline_feedback` is true (Vulkan 1.3 devices).
  uint64_t pipeline_cache_hits = 0;
  bool pipeline_feedback = false;
};

}  // namespace wasmgpu::runtime
