#include "harness/staging.h"

#include <fmt/core.h>

#include <stdexcept>

#include "harness/workload.h"

namespace wasmgpu::bench {
namespace {

void check_range(uint64_t offset, uint64_t bytes, uint64_t size, const char* what) {
  if (offset > size || bytes > size - offset)
    throw std::logic_error(fmt::format("staging {} of {} bytes at {}: outside {} bytes", what, bytes, offset, size));
}

}  // namespace

Staging::Staging(Gpu& gpu, uint64_t capacity) : gpu_(gpu), capacity_(capacity) {
  try {
    buffer_.emplace(gpu.device().staging_buffer(capacity));
  } catch (const Exception& e) {
    if (e.kind() != ErrorKind::Unsupported) throw;
    fallback_.resize(capacity);
  }
}

void Staging::upload(BufferBase& buffer, uint64_t offset, uint64_t bytes) {
  check_range(0, bytes, capacity_, "upload");
  check_range(offset, bytes, buffer.size_bytes(), "upload");
  if (bytes == 0) return;
  if (!buffer_) return bench::upload(buffer, fallback_.data(), bytes, offset);
  gpu_.run([&](CommandBuffer& commands) { commands.copy(*buffer_, buffer, bytes, 0, offset); });
}

const uint8_t* Staging::download(const BufferBase& buffer, std::span<const CopyRegion> regions) {
  for (const CopyRegion& r : regions) {
    check_range(r.dst_offset, r.size, capacity_, "download");
    check_range(r.src_offset, r.size, buffer.size_bytes(), "download");
  }
  if (!buffer_) {
    for (const CopyRegion& r : regions) bench::download(buffer, fallback_.data() + r.dst_offset, r.size, r.src_offset);
    return fallback_.data();
  }
  if (!regions.empty())
    gpu_.run([&](CommandBuffer& commands) {
      for (const CopyRegion& r : regions) commands.copy(buffer, *buffer_, r.size, r.src_offset, r.dst_offset);
    });
  return data();
}

const uint8_t* Staging::download(const BufferBase& buffer, uint64_t offset, uint64_t bytes) {
  const CopyRegion region{offset, 0, bytes};
  return download(buffer, std::span<const CopyRegion>(&region, bytes ? 1 : 0));
}

}  // namespace wasmgpu::bench
