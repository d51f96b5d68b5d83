// SHA-256 (FIPS 180-4), for content keys of the on-disk caches
// (runtime/compile_cache.h): a key names the compiled output of exactly one
// input, so an accidental collision must be out of the question, which a
// 64-bit hash does not give.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace wasmgpu {

using Sha256Digest = std::array<uint8_t, 32>;

// Incremental: update() any number of times, then finish() once.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::span<const uint8_t> bytes) { update(bytes.data(), bytes.size()); }
  void update(std::string_view text) { update(text.data(), text.size()); }
  Sha256Digest finish();

 private:
  void compress(const uint8_t block[64]);

  std::array<uint32_t, 8> state_;
  uint8_t block_[64];
  size_t block_used_ = 0;
  uint64_t total_bytes_ = 0;
};

Sha256Digest sha256(std::span<const uint8_t> bytes);
Sha256Digest sha256(std::string_view text);

// Lower-case hex, 64 characters.
std::string to_hex(const Sha256Digest& digest);

}  // namespace wasmgpu
