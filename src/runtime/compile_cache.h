// Internal: the compiled-SPIR-V cache (docs/caching.md). A compile the
// runtime runs (a kernel, a call shader, the survey of a module's callable
// exports) is looked up by a key that covers everything its output depends
// on, and stored after a miss, so that loading the same module again, in this
// process or a later one, compiles nothing.
//
// The key is a SHA-256 over:
//  - the wasm bytes (their SHA-256, computed once per Module);
//  - the compiler's identity (compiler_fingerprint()): PROJECT_VERSION, a
//    SHA-256 of the compiler's sources generated at build time (any edit to
//    src/wasm, src/spirv, src/abi or this cache's format changes it),
//    kCompileCacheFormat and SPIRV-Tools' version;
//  - every field of spirv::CompileOptions (compile_options_key_bytes: a
//    structured binding that stops the build when a field is added and not
//    listed);
//  - what is compiled: the kind and the export name(s).
// The compiler reads nothing of the device (the SPIR-V is portable; device
// features are checked when the Kernel is created), so no device facts are in
// the key: one entry serves every device. Should a CompileOptions field ever
// carry a device fact, it is in the key through that field.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/disk_cache.h"
#include "spirv/compiler.h"
#include "support/result.h"
#include "support/sha256.h"
#include "wasm/module.h"

namespace wasmgpu::runtime {

struct CacheStats;

// Bump when the payload layout written by serialize() changes in a way the
// source fingerprint would not notice (it covers this file's .cpp, so in
// practice: never needed, kept for clarity).
inline constexpr uint32_t kCompileCacheFormat = 1;

// "0.1.0+<sha256 of the compiler sources>+f1+spirv-tools <version>".
const std::string& compiler_fingerprint();

// Every CompileOptions field, in declaration order, as bytes.
std::vector<uint8_t> compile_options_key_bytes(const spirv::CompileOptions& options);

Sha256Digest compile_cache_key(CacheEntryKind kind, const Sha256Digest& wasm_sha256,
                               const spirv::CompileOptions& options, std::span<const std::string> names);

// The callable exports of a module and why the others are refused
// (Module::call_info).
struct CallCatalogueData {
  std::vector<spirv::CallInfo> calls;
  std::vector<std::pair<std::string, std::string>> refused;  // export, reason
};

// Payload encodings. Decoding checks every length, enum value and the SPIR-V
// magic number and must consume the payload exactly; nullopt otherwise.
std::vector<uint8_t> serialize(const spirv::CompiledKernel& kernel);
std::vector<uint8_t> serialize(const spirv::CompiledCalls& calls);
std::vector<uint8_t> serialize(const CallCatalogueData& catalogue);
std::optional<spirv::CompiledKernel> deserialize_kernel(std::span<const uint8_t> payload);
std::optional<spirv::CompiledCalls> deserialize_calls(std::span<const uint8_t> payload);
std::optional<CallCatalogueData> deserialize_catalogue(std::span<const uint8_t> payload);

// Compiles through the cache; `disk` may be null (no cache). Counts into
// `stats`. Failures are not cached: a refused export is compiled (and
// refused) again.
class CompileCache {
 public:
  CompileCache(std::shared_ptr<DiskCache> disk, CacheStats& stats) : disk_(std::move(disk)), stats_(&stats) {}
  void set_disk(std::shared_ptr<DiskCache> disk) { disk_ = std::move(disk); }

  bool enabled() const { return disk_ != nullptr; }

  Result<spirv::CompiledKernel> kernel(const wasm::Module& module, const Sha256Digest& wasm_sha256,
                                       std::string_view export_name, const spirv::CompileOptions& options);
  Result<spirv::CompiledCalls> calls(const wasm::Module& module, const Sha256Digest& wasm_sha256,
                                     std::span<const std::string> exports, const spirv::CompileOptions& options);
  // A cached catalogue, or nullopt (then build it and store_catalogue()).
  std::optional<CallCatalogueData> find_catalogue(const Sha256Digest& wasm_sha256,
                                                  const spirv::CompileOptions& options);
  void store_catalogue(const Sha256Digest& wasm_sha256, const spirv::CompileOptions& options,
                       const CallCatalogueData& catalogue);
  // Uncached compile_calls, counted (the catalogue's survey uses it).
  Result<spirv::CompiledCalls> compile_calls_uncached(const wasm::Module& module, std::span<const std::string> exports,
                                                      const spirv::CompileOptions& options);

 private:
  std::optional<std::vector<uint8_t>> lookup(CacheEntryKind kind, const Sha256Digest& key);
  void store(CacheEntryKind kind, const Sha256Digest& key, std::span<const uint8_t> payload);

  std::shared_ptr<DiskCache> disk_;
  CacheStats* stats_;
};

}  // namespace wasmgpu::runtime
