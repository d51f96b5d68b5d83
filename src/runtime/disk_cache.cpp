#include "runtime/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "support/environment.h"

namespace wasmgpu::runtime {

namespace fs = std::filesystem;

namespace {

// Header of every entry file (little-endian):
//   0  char[8]  "wasmgpuC"
//   8  u32      kEntryFormatVersion
//  12  u32      CacheEntryKind
//  16  u8[32]   key
//  48  u64      payload size
//  56  u8[32]   SHA-256 of the payload
//  88           payload
constexpr char kMagic[8] = {'w', 'a', 's', 'm', 'g', 'p', 'u', 'C'};
// Bump when the header layout changes.
constexpr uint32_t kEntryFormatVersion = 1;
constexpr size_t kHeaderSize = 88;
// A write trims the directory on the first write of a DiskCache and then on
// every this many: enough to stay near max_bytes without a directory scan per
// write.
constexpr uint64_t kTrimInterval = 64;
// Temporary files are named ".tmp-*"; one older than this belongs to a writer
// that died.
constexpr auto kStaleTemporary = std::chrono::hours(1);

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

bool is_temporary(const fs::path& path) { return path.filename().string().rfind(".tmp-", 0) == 0; }

}  // namespace

Result<fs::path> resolve_cache_directory(const CacheOptions& options) {
  // The cache is off: there is no directory for it (NotFound), or the caller named none (InvalidArgument).
  auto off = [](std::string reason, ErrorCode code = ErrorCode::NotFound) {
    return make_error(code, std::move(reason));
  };
  if (!options.enabled) return off("turned off by CacheOptions::enabled");
  if (environment::cache_off()) return off("turned off by WASMGPU_CACHE=" + *environment::cache_setting());
  if (options.directory) {
    if (options.directory->empty()) return off("CacheOptions::directory is empty", ErrorCode::InvalidArgument);
    return fs::path(*options.directory);
  }
  if (std::optional<std::string> dir = environment::cache_directory()) return fs::path(*dir);
  // XDG Base Directory: relative values are invalid and ignored.
  if (std::optional<std::string> xdg = environment::xdg_cache_home()) return fs::path(*xdg) / "wasmgpu";
  if (std::optional<std::string> home = environment::home()) return fs::path(*home) / ".cache" / "wasmgpu";
  return off("no WASMGPU_CACHE_DIR, XDG_CACHE_HOME or HOME to put it in");
}

std::optional<uint64_t> parse_cache_size(std::string_view text) {
  uint64_t multiplier = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k':
      case 'K': multiplier = 1ull << 10; break;
      case 'm':
      case 'M': multiplier = 1ull << 20; break;
      case 'g':
      case 'G': multiplier = 1ull << 30; break;
      default: break;
    }
    if (multiplier != 1) text.remove_suffix(1);
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value == 0 ||
      value > UINT64_MAX / multiplier)
    return std::nullopt;
  return value * multiplier;
}

uint64_t resolve_cache_max_bytes(const CacheOptions& options) {
  if (options.max_bytes) return *options.max_bytes;
  if (std::optional<std::string> text = environment::cache_max_size())
    if (auto size = parse_cache_size(*text)) return *size;
  return kDefaultCacheMaxBytes;
}

std::vector<uint8_t> seal_cache_entry(CacheEntryKind kind, const Sha256Digest& key, std::span<const uint8_t> payload) {
  std::vector<uint8_t> file;
  file.reserve(kHeaderSize + payload.size());
  file.insert(file.end(), kMagic, kMagic + 8);
  put_u32(file, kEntryFormatVersion);
  put_u32(file, uint32_t(kind));
  file.insert(file.end(), key.begin(), key.end());
  put_u64(file, payload.size());
  const Sha256Digest checksum = sha256(payload);
  file.insert(file.end(), checksum.begin(), checksum.end());
  file.insert(file.end(), payload.begin(), payload.end());
  return file;
}

std::optional<std::vector<uint8_t>> open_cache_entry(CacheEntryKind kind, const Sha256Digest& key,
                                                     std::span<const uint8_t> file) {
  if (file.size() < kHeaderSize) return std::nullopt;
  const uint8_t* p = file.data();
  if (std::memcmp(p, kMagic, 8) != 0) return std::nullopt;
  if (get_le(p + 8, 4) != kEntryFormatVersion) return std::nullopt;
  if (get_le(p + 12, 4) != uint32_t(kind)) return std::nullopt;
  if (std::memcmp(p + 16, key.data(), key.size()) != 0) return std::nullopt;
  const uint64_t size = get_le(p + 48, 8);
  if (size != file.size() - kHeaderSize) return std::nullopt;
  const std::span<const uint8_t> payload = file.subspan(kHeaderSize);
  const Sha256Digest checksum = sha256(payload);
  if (std::memcmp(p + 56, checksum.data(), checksum.size()) != 0) return std::nullopt;
  return std::vector<uint8_t>(payload.begin(), payload.end());
}

Status write_file_atomically(const fs::path& path, std::span<const uint8_t> bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return make_error(ErrorCode::Io, "cannot create " + path.parent_path().string() + ": " + ec.message());
  std::string temp = (path.parent_path() / ".tmp-XXXXXX").string();
  const int fd = mkstemp(temp.data());
  if (fd < 0)
    return make_error(ErrorCode::Io,
                      "cannot create a file in " + path.parent_path().string() + ": " + std::strerror(errno));
  auto fail = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return make_error(ErrorCode::Io, std::string(what) + " " + temp + ": " + std::strerror(saved));
  };
  // mkstemp makes it 0600; entries are as readable as the user's other
  // files. (Not 0666 & ~umask: reading the umask means setting it, which
  // races with other threads creating files.)
  ::fchmod(fd, 0644);
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write");
    }
    done += size_t(n);
  }
  // The data must be on disk before the name points at it: after a crash the
  // rename may survive while unflushed data does not.
  if (::fsync(fd) != 0) return fail("cannot flush");
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    return make_error(ErrorCode::Io, "cannot close " + temp + ": " + std::strerror(saved));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    return make_error(ErrorCode::Io, "cannot rename " + temp + " to " + path.string() + ": " + std::strerror(saved));
  }
  return {};
}

Result<std::shared_ptr<DiskCache>> DiskCache::open(const CacheOptions& options) {
  WASMGPU_ASSIGN_OR_RETURN(fs::path directory, resolve_cache_directory(options));
  return std::make_shared<DiskCache>(std::move(directory), resolve_cache_max_bytes(options));
}

DiskCache::DiskCache(fs::path directory, uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {}

DiskCache::ReadResult DiskCache::read(std::string_view folder, std::string_view name, CacheEntryKind kind,
                                      const Sha256Digest& key) const {
  ReadResult result;
  const fs::path path = directory_ / folder / name;
  std::ifstream in(path, std::ios::binary);
  if (!in) return result;
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return result;
  std::optional<std::vector<uint8_t>> payload = open_cache_entry(kind, key, file);
  if (!payload) {
    result.status = ReadStatus::Corrupt;
    return result;
  }
  // Last use, for trim(). Failure (a read-only cache) only makes trimming less exact.
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  result.status = ReadStatus::Hit;
  result.payload = std::move(*payload);
  return result;
}

Status DiskCache::write(std::string_view folder, std::string_view name, CacheEntryKind kind, const Sha256Digest& key,
                        std::span<const uint8_t> payload) {
  WASMGPU_TRY(write_file_atomically(directory_ / folder / name, seal_cache_entry(kind, key, payload)));
  bool trim_now;
  {
    std::lock_guard lock(mutex_);
    trim_now = writes_++ % kTrimInterval == 0;
  }
  if (trim_now) trim();
  return {};
}

size_t DiskCache::trim() {
  struct Entry {
    fs::path path;
    uint64_t size;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  size_t removed = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  // Entries live one folder deep (spirv/, pipelines/); nothing else is touched.
  for (const fs::directory_entry& folder : fs::directory_iterator(directory_, ec)) {
    std::error_code folder_ec;
    if (!folder.is_directory(folder_ec)) continue;
    for (const fs::directory_entry& file : fs::directory_iterator(folder.path(), folder_ec)) {
      std::error_code file_ec;
      if (!file.is_regular_file(file_ec)) continue;
      const uint64_t size = file.file_size(file_ec);
      const fs::file_time_type used = file.last_write_time(file_ec);
      if (file_ec) continue;  // removed meanwhile by another process
      if (is_temporary(file.path())) {
        if (now - used > kStaleTemporary && fs::remove(file.path(), file_ec)) ++removed;
        continue;
      }
      entries.push_back(Entry{file.path(), size, used});
      total += size;
    }
  }
  if (total <= max_bytes_) return removed;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  const uint64_t goal = max_bytes_ / 4 * 3;
  for (const Entry& entry : entries) {
    if (total <= goal) break;
    std::error_code remove_ec;
    // Another process may read it right now: it keeps its open file, or finds
    // no entry and compiles.
    if (fs::remove(entry.path, remove_ec)) ++removed;
    total -= entry.size;
  }
  return removed;
}

}  // namespace wasmgpu::runtime
