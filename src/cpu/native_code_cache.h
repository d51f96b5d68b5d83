// The cpu device's compiled native code on disk (docs/caching.md): the object
// file of each kernel and of each module's calls, under
// <cache>/native/<key>.bin, keyed the way the SPIR-V cache is. A second load
// of a module (in this process or a later one) links the cached object and
// compiles nothing. The same directory keeps the API's own entries
// (DeviceBackend::read_cached).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/cache_stats.h"
#include "device/device_platform.h"
#include "device/device_backend.h"  // spirv::CompileOptions, CallInfo: the device interface's types
#include "support/sha256.h"

namespace wasmgpu::runtime {
class DiskCache;
}  // namespace wasmgpu::runtime

namespace wasmgpu::cpu {

class NativeCodeCache {
 public:
  // Off when `options` or the environment turn caching off, or no directory
  // is known (cache_stats() then says why).
  explicit NativeCodeCache(const device::OpenOptions& options);
  ~NativeCodeCache();

  // A SHA-256 over, each part length-prefixed: the cpu device's code
  // generator (a fingerprint of its sources and the front end's, the LLVM
  // version, the host CPU and its features), `kind` ("kernel", "calls"),
  // the wasm bytes' SHA-256, every CompileOptions field and the export names.
  static Sha256Digest key(std::string_view kind, const Sha256Digest& wasm_sha256, const spirv::CompileOptions& options,
                          std::span<const std::string> names);

  // The object stored under `key` (a hit), or nullopt (counted as a miss, or
  // as corrupt when the entry failed its checks).
  std::optional<std::vector<uint8_t>> read(const Sha256Digest& key);
  // A hit whose object the JIT would not link: counted as corrupt (the
  // fresh compile's write replaces it).
  void reject(const Sha256Digest& key);
  void wrote_compile(const Sha256Digest& key, std::span<const uint8_t> object, double compile_seconds);

  // DeviceBackend::read_cached / write_cached.
  std::optional<std::vector<uint8_t>> read_api(std::string_view folder, const Sha256Digest& key);
  void write_api(std::string_view folder, const Sha256Digest& key, std::span<const uint8_t> payload);

  device::CacheStats stats() const;

 private:
  std::shared_ptr<runtime::DiskCache> cache_;
  mutable std::mutex mutex_;
  device::CacheStats stats_;
};

}  // namespace wasmgpu::cpu
