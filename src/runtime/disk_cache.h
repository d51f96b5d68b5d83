// Internal: the cache directory shared by the compiled-SPIR-V cache
// (compile_cache.h) and the Vulkan pipeline cache (pipeline_cache.h).
//
// Every entry is one file, written whole to a temporary file in the same
// directory, flushed (fsync) and renamed over its name, so that a reader (in
// this process or another) sees either no entry, an old complete entry or the
// new complete entry, never a partial one. Each entry carries its kind, its
// key and a SHA-256 of its payload; an entry that fails any check is treated
// as absent (and is overwritten by the next write of that key).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cache.h"
#include "support/result.h"
#include "support/sha256.h"

namespace wasmgpu::runtime {

// The default CacheOptions::max_bytes.
inline constexpr uint64_t kDefaultCacheMaxBytes = 256ull << 20;

// What lies in a file, checked on every read.
enum class CacheEntryKind : uint32_t {
  CompiledKernel = 1,  // spirv::CompiledKernel
  CompiledCalls = 2,   // spirv::CompiledCalls
  CallCatalogue = 3,   // the callable exports of a module
  PipelineCache = 4,   // vkGetPipelineCacheData output
  DeviceProbe = 5,     // device probe results (device_probe_cache.h)
  ApiEntry = 6,        // the public API's own entries (autotuned launch shapes, api/launch_shape.h)
  NativeCode = 7,      // the cpu device's object code (cpu/native_code_cache.h)
};

// The directory CacheOptions and the environment choose, or an error saying
// why caching is off (for verbose output).
Result<std::filesystem::path> resolve_cache_directory(const CacheOptions& options);
// CacheOptions::max_bytes, else WASMGPU_CACHE_MAX_SIZE ("512M", "2G", bytes),
// else kDefaultCacheMaxBytes.
uint64_t resolve_cache_max_bytes(const CacheOptions& options);
// "123", "64k", "512M", "2G" (binary units); nullopt when malformed or zero.
std::optional<uint64_t> parse_cache_size(std::string_view text);

// An entry file: header + payload. Exposed for tests.
std::vector<uint8_t> seal_cache_entry(CacheEntryKind kind, const Sha256Digest& key, std::span<const uint8_t> payload);
// The payload, when `file` is a complete entry of this kind and key whose
// checksum matches.
std::optional<std::vector<uint8_t>> open_cache_entry(CacheEntryKind kind, const Sha256Digest& key,
                                                     std::span<const uint8_t> file);

class DiskCache {
 public:
  // An error saying why when caching is off. Creates nothing yet: the
  // directory is created on the first write.
  static Result<std::shared_ptr<DiskCache>> open(const CacheOptions& options);

  DiskCache(std::filesystem::path directory, uint64_t max_bytes);

  const std::filesystem::path& directory() const { return directory_; }
  uint64_t max_bytes() const { return max_bytes_; }

  enum class ReadStatus { Hit, Missing, Corrupt };
  struct ReadResult {
    ReadStatus status = ReadStatus::Missing;
    std::vector<uint8_t> payload;  // on Hit
  };
  // Reads `folder/name` and checks it. A hit refreshes the file's
  // modification time, which trimming uses as its last use.
  ReadResult read(std::string_view folder, std::string_view name, CacheEntryKind kind, const Sha256Digest& key) const;
  // Writes `folder/name` atomically (see above), then trims the directory now
  // and then. Fails only with a reason for verbose output; callers go on
  // without the cache.
  Status write(std::string_view folder, std::string_view name, CacheEntryKind kind, const Sha256Digest& key,
               std::span<const uint8_t> payload);

  // Deletes the least recently used entries until the entries take at most
  // three quarters of max_bytes, when they take more than max_bytes; also
  // removes temporary files that crashed writers left (older than an hour).
  // Returns the number of files deleted.
  size_t trim();

 private:
  std::filesystem::path directory_;
  uint64_t max_bytes_;
  std::mutex mutex_;     // writes_
  uint64_t writes_ = 0;  // trim() runs on the first write and every kTrimInterval-th
};

// Writes `bytes` to `path` atomically: a temporary file next to it, fsync,
// rename. Creates the parent directory. Exposed for tests.
Status write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);

}  // namespace wasmgpu::runtime
