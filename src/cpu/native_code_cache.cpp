#include "cpu/native_code_cache.h"

#include <chrono>
#include <cstring>

#include "cpu/jit.h"
#include "runtime/compile_cache.h"
#include "runtime/disk_cache.h"

namespace wasmgpu::cpu {

// Generated at build time from the cpu device's and the front end's sources
// (src/CMakeLists.txt, cmake/CodegenFingerprint.cmake).
const char* generated_cpu_codegen_fingerprint();

namespace {

constexpr std::string_view kFolder = "native";

void put(std::vector<uint8_t>& out, std::span<const uint8_t> part) {
  const uint64_t size = part.size();
  const auto* size_bytes = reinterpret_cast<const uint8_t*>(&size);
  out.insert(out.end(), size_bytes, size_bytes + 8);
  out.insert(out.end(), part.begin(), part.end());
}
void put(std::vector<uint8_t>& out, std::string_view text) {
  put(out, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace

NativeCodeCache::NativeCodeCache(const device::OpenOptions& options) {
  runtime::CacheOptions cache_options;
  cache_options.enabled = options.cache;
  cache_options.directory = options.cache_directory;
  if (Result<std::shared_ptr<runtime::DiskCache>> cache = runtime::DiskCache::open(cache_options); cache.ok()) {
    cache_ = std::move(cache).value();
    stats_.directory = cache_->directory().string();
  } else {
    stats_.disabled_reason = cache.error().message;
  }
}

NativeCodeCache::~NativeCodeCache() = default;

Sha256Digest NativeCodeCache::key(std::string_view kind, const Sha256Digest& wasm_sha256,
                                  const spirv::CompileOptions& options, std::span<const std::string> names) {
  static const std::string generator =
      std::string(generated_cpu_codegen_fingerprint()) + " " + native_target_fingerprint();
  std::vector<uint8_t> bytes;
  put(bytes, "wasmgpu native code");
  put(bytes, generator);
  put(bytes, kind);
  put(bytes, wasm_sha256);
  put(bytes, runtime::compile_options_key_bytes(options));
  for (const std::string& name : names) put(bytes, name);
  return sha256(bytes);
}

std::optional<std::vector<uint8_t>> NativeCodeCache::read(const Sha256Digest& key) {
  if (!cache_) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  runtime::DiskCache::ReadResult read =
      cache_->read(kFolder, to_hex(key) + ".bin", runtime::CacheEntryKind::NativeCode, key);
  std::lock_guard lock(mutex_);
  stats_.spirv_cache_read_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (read.status == runtime::DiskCache::ReadStatus::Corrupt) ++stats_.spirv_cache_corrupt;
  if (read.status != runtime::DiskCache::ReadStatus::Hit) return std::nullopt;
  ++stats_.spirv_cache_hits;
  return std::move(read.payload);
}

void NativeCodeCache::reject(const Sha256Digest&) {
  std::lock_guard lock(mutex_);
  --stats_.spirv_cache_hits;
  ++stats_.spirv_cache_corrupt;
}

void NativeCodeCache::wrote_compile(const Sha256Digest& key, std::span<const uint8_t> object, double compile_seconds) {
  Status written;
  if (cache_) written = cache_->write(kFolder, to_hex(key) + ".bin", runtime::CacheEntryKind::NativeCode, key, object);
  std::lock_guard lock(mutex_);
  ++stats_.spirv_compiles;
  stats_.spirv_compile_seconds += compile_seconds;
  if (!written.ok()) {
    ++stats_.cache_write_failures;
    stats_.last_write_failure = written.error().message;
  }
}

std::optional<std::vector<uint8_t>> NativeCodeCache::read_api(std::string_view folder, const Sha256Digest& key) {
  if (!cache_) return std::nullopt;
  runtime::DiskCache::ReadResult read =
      cache_->read(folder, to_hex(key) + ".bin", runtime::CacheEntryKind::ApiEntry, key);
  if (read.status != runtime::DiskCache::ReadStatus::Hit) return std::nullopt;
  return std::move(read.payload);
}

void NativeCodeCache::write_api(std::string_view folder, const Sha256Digest& key, std::span<const uint8_t> payload) {
  if (cache_) (void)cache_->write(folder, to_hex(key) + ".bin", runtime::CacheEntryKind::ApiEntry, key, payload);
}

device::CacheStats NativeCodeCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace wasmgpu::cpu
