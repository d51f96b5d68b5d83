// The cache directory: where it is, entry files that check themselves, atomic
// writes and trimming. No device needed.
#include "runtime/disk_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/environment.h"
#include "support/scoped_variable.h"

namespace wasmgpu::runtime {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("wasmgpu-disk-cache-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

using ScopedEnv = environment::ScopedVariable;

// The directory chosen, or "off: " and why.
std::string resolved(const CacheOptions& options) {
  Result<fs::path> directory = resolve_cache_directory(options);
  return directory.ok() ? directory->string() : "off: " + directory.error().message;
}

TEST(CacheDirectory, ChosenByOptionsThenEnvironment) {
  ScopedEnv cache("WASMGPU_CACHE", nullptr), dir("WASMGPU_CACHE_DIR", nullptr), xdg("XDG_CACHE_HOME", nullptr),
      home("HOME", "/home/someone");
  CacheOptions options;
  EXPECT_EQ(resolved(options), "/home/someone/.cache/wasmgpu");
  {
    ScopedEnv relative("XDG_CACHE_HOME", "relative/ignored");
    EXPECT_EQ(resolved(options), "/home/someone/.cache/wasmgpu");
  }
  ScopedEnv xdg_set("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(resolved(options), "/xdg/wasmgpu");
  ScopedEnv dir_set("WASMGPU_CACHE_DIR", "/explicit");
  EXPECT_EQ(resolved(options), "/explicit");
  options.directory = "/from-options";
  EXPECT_EQ(resolved(options), "/from-options");

  ScopedEnv off("WASMGPU_CACHE", "0");
  EXPECT_EQ(resolved(options), "off: turned off by WASMGPU_CACHE=0");
  ScopedEnv on("WASMGPU_CACHE", "1");
  EXPECT_EQ(resolved(options), "/from-options");
  options.enabled = false;
  EXPECT_EQ(resolved(options), "off: turned off by CacheOptions::enabled");
  Result<std::shared_ptr<DiskCache>> opened = DiskCache::open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().message, "turned off by CacheOptions::enabled");
}

TEST(CacheDirectory, NoHomeMeansNoCache) {
  ScopedEnv cache("WASMGPU_CACHE", nullptr), dir("WASMGPU_CACHE_DIR", nullptr), xdg("XDG_CACHE_HOME", nullptr),
      home("HOME", nullptr);
  Result<fs::path> directory = resolve_cache_directory(CacheOptions{});
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.error().message.find("no WASMGPU_CACHE_DIR"), std::string::npos) << directory.error().message;
}

TEST(CacheDirectory, MaxSize) {
  EXPECT_EQ(parse_cache_size("4096"), 4096u);
  EXPECT_EQ(parse_cache_size("64k"), 64u << 10);
  EXPECT_EQ(parse_cache_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_cache_size("2G"), 2ull << 30);
  EXPECT_EQ(parse_cache_size(""), std::nullopt);
  EXPECT_EQ(parse_cache_size("0"), std::nullopt);
  EXPECT_EQ(parse_cache_size("12x"), std::nullopt);
  EXPECT_EQ(parse_cache_size("M"), std::nullopt);
  EXPECT_EQ(parse_cache_size("99999999999G"), std::nullopt);  // overflows 64 bits
  ScopedEnv size("WASMGPU_CACHE_MAX_SIZE", "3M");
  EXPECT_EQ(resolve_cache_max_bytes(CacheOptions{}), 3u << 20);
  CacheOptions options;
  options.max_bytes = 1000;
  EXPECT_EQ(resolve_cache_max_bytes(options), 1000u);
  ScopedEnv bad("WASMGPU_CACHE_MAX_SIZE", "lots");
  EXPECT_EQ(resolve_cache_max_bytes(CacheOptions{}), kDefaultCacheMaxBytes);
}

// Any damage to an entry file makes it unreadable, never a wrong payload.
TEST(CacheEntry, EveryDamagedByteAndEveryTruncationIsRejected) {
  const Sha256Digest key = sha256(std::string_view("key"));
  const std::vector<uint8_t> payload = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<uint8_t> file = seal_cache_entry(CacheEntryKind::CompiledKernel, key, payload);
  ASSERT_EQ(open_cache_entry(CacheEntryKind::CompiledKernel, key, file), payload);
  EXPECT_EQ(open_cache_entry(CacheEntryKind::CompiledCalls, key, file), std::nullopt);
  EXPECT_EQ(open_cache_entry(CacheEntryKind::CompiledKernel, sha256(std::string_view("other")), file), std::nullopt);
  for (size_t i = 0; i < file.size(); ++i) {
    std::vector<uint8_t> damaged = file;
    damaged[i] ^= 0x10;
    EXPECT_EQ(open_cache_entry(CacheEntryKind::CompiledKernel, key, damaged), std::nullopt) << "byte " << i;
    EXPECT_EQ(open_cache_entry(CacheEntryKind::CompiledKernel, key, std::span<const uint8_t>(file.data(), i)),
              std::nullopt)
        << "first " << i << " bytes";
  }
  std::vector<uint8_t> longer = file;
  longer.push_back(0);
  EXPECT_EQ(open_cache_entry(CacheEntryKind::CompiledKernel, key, longer), std::nullopt);
}

TEST(DiskCacheFiles, WriteThenReadAndCorruptIsReported) {
  TempDir dir;
  DiskCache cache(dir.path / "cache", kDefaultCacheMaxBytes);
  const Sha256Digest key = sha256(std::string_view("k"));
  EXPECT_EQ(cache.read("spirv", "a.bin", CacheEntryKind::CompiledKernel, key).status, DiskCache::ReadStatus::Missing);
  const std::vector<uint8_t> payload(1000, 7);
  ASSERT_TRUE(cache.write("spirv", "a.bin", CacheEntryKind::CompiledKernel, key, payload).ok());
  DiskCache::ReadResult hit = cache.read("spirv", "a.bin", CacheEntryKind::CompiledKernel, key);
  EXPECT_EQ(hit.status, DiskCache::ReadStatus::Hit);
  EXPECT_EQ(hit.payload, payload);
  // Nothing but the entry: the temporary file was renamed.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path / "cache" / "spirv"), fs::directory_iterator()), 1);

  fs::resize_file(dir.path / "cache" / "spirv" / "a.bin", 500);
  EXPECT_EQ(cache.read("spirv", "a.bin", CacheEntryKind::CompiledKernel, key).status, DiskCache::ReadStatus::Corrupt);
  // A write replaces the broken file.
  ASSERT_TRUE(cache.write("spirv", "a.bin", CacheEntryKind::CompiledKernel, key, payload).ok());
  EXPECT_EQ(cache.read("spirv", "a.bin", CacheEntryKind::CompiledKernel, key).status, DiskCache::ReadStatus::Hit);
}

TEST(DiskCacheFiles, UnwritableDirectoryFailsWithAReason) {
  TempDir dir;
  std::ofstream(dir.path / "file") << "x";
  DiskCache cache(dir.path / "file" / "cache", kDefaultCacheMaxBytes);  // under a regular file
  const Status written = cache.write("spirv", "a.bin", CacheEntryKind::CompiledKernel, sha256(std::string_view("k")),
                                     std::vector<uint8_t>{1});
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("cannot create"), std::string::npos) << written.error().message;
  EXPECT_EQ(written.error().code, ErrorCode::Io);
}

TEST(DiskCacheFiles, TrimRemovesLeastRecentlyUsedFirst) {
  TempDir dir;
  // Six entries of ~1 KiB under a 5 KiB budget: the oldest go until at most
  // three quarters (3.75 KiB) remain.
  DiskCache cache(dir.path, 5 * 1024);
  const std::vector<uint8_t> payload(1024 - 88, 1);  // 88: the entry header
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 6; ++i) {
    const std::string name = "e" + std::to_string(i) + ".bin";
    ASSERT_TRUE(write_file_atomically(dir.path / "spirv" / name,
                                      seal_cache_entry(CacheEntryKind::CompiledKernel, sha256(name), payload))
                    .ok());
    fs::last_write_time(dir.path / "spirv" / name, now - std::chrono::minutes(60 - i));
  }
  // Reading e0 makes it the most recently used.
  EXPECT_EQ(cache.read("spirv", "e0.bin", CacheEntryKind::CompiledKernel, sha256(std::string_view("e0.bin"))).status,
            DiskCache::ReadStatus::Hit);
  // A temporary file a crashed writer left two hours ago, and one being written now.
  std::ofstream(dir.path / "spirv" / ".tmp-stale") << "partial";
  fs::last_write_time(dir.path / "spirv" / ".tmp-stale", now - std::chrono::hours(2));
  std::ofstream(dir.path / "spirv" / ".tmp-live") << "partial";

  EXPECT_EQ(cache.trim(), 4u);  // e1, e2, e3 and the stale temporary file
  for (const char* gone : {"e1.bin", "e2.bin", "e3.bin", ".tmp-stale"})
    EXPECT_FALSE(fs::exists(dir.path / "spirv" / gone)) << gone;
  for (const char* kept : {"e0.bin", "e4.bin", "e5.bin", ".tmp-live"})
    EXPECT_TRUE(fs::exists(dir.path / "spirv" / kept)) << kept;
  EXPECT_EQ(cache.trim(), 0u);  // under budget now
}

}  // namespace
}  // namespace wasmgpu::runtime
