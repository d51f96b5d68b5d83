// The bench's own staging buffer for its large transfers. Device buffers may
// be host-mapped write-combined memory (resizable BAR on a discrete GPU),
// which the CPU reads uncached, slowly, and writes from one thread at a time
// through Buffer::write_bytes; so the bench has the GPU copy
// (CommandBuffer::copy, many ranges at once) between device buffers and a
// StagingBuffer in host-cached memory, which its threads write inputs into
// and read outputs from. On a device without staging buffers it falls back
// to BufferBase::write_bytes and read_bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "harness/gpu.h"
#include "harness/parallel_for.h"

namespace wasmgpu::bench {

// One range of a download: `size` bytes from `src_offset` in the device
// buffer to `dst_offset` in the staging memory.
struct CopyRegion {
  uint64_t src_offset = 0, dst_offset = 0, size = 0;
};

class Staging {
 public:
  explicit Staging(Gpu& gpu, uint64_t capacity = 64ull << 20);

  uint64_t capacity() const { return capacity_; }
  // The host memory: write here, then upload(); read here after download().
  uint8_t* data() { return buffer_ ? reinterpret_cast<uint8_t*>(buffer_->data().data()) : fallback_.data(); }
  // Copies the first `bytes` of data() to `buffer` at `offset`.
  void upload(BufferBase& buffer, uint64_t offset, uint64_t bytes);
  // Copies each region (within capacity()) and returns data().
  const uint8_t* download(const BufferBase& buffer, std::span<const CopyRegion> regions);
  const uint8_t* download(const BufferBase& buffer, uint64_t offset, uint64_t bytes);

 private:
  Gpu& gpu_;
  uint64_t capacity_;
  std::optional<StagingBuffer> buffer_;
  std::vector<uint8_t> fallback_;  // without a staging buffer
};

// Calls check(first, values, count) on consecutive chunks of the `count`
// elements of T at the start of `buffer`, in parallel (parallel_for: the
// first wrong chunk's exception wins), copying them through the staging
// buffer 64 MiB at a time: no host copy of the whole buffer.
template <class T, class Check>
void check_elements(Gpu& gpu, const BufferBase& buffer, uint64_t count, const Check& check) {
  Staging& staging = gpu.staging();
  const uint64_t per_copy = staging.capacity() / sizeof(T);
  for (uint64_t first = 0; first < count; first += per_copy) {
    const uint64_t n = std::min(per_copy, count - first);
    const T* values = reinterpret_cast<const T*>(staging.download(buffer, first * sizeof(T), n * sizeof(T)));
    parallel_for(n, 1 << 16, [&](uint64_t begin, uint64_t end) { check(first + begin, values + begin, end - begin); });
  }
}

// The elements of `buffer` (of T) at `indices`, through the staging buffer;
// runs of consecutive indices are copied as one range.
template <class T>
std::vector<T> download_elements(Gpu& gpu, const BufferBase& buffer, std::span<const uint64_t> indices) {
  Staging& staging = gpu.staging();
  std::vector<T> out(indices.size());
  std::vector<CopyRegion> regions;
  size_t done = 0;  // elements of `out` filled
  while (done < indices.size()) {
    regions.clear();
    uint64_t used = 0;
    size_t i = done;
    for (; i < indices.size() && used + sizeof(T) <= staging.capacity(); ++i, used += sizeof(T)) {
      if (i > done && indices[i] == indices[i - 1] + 1)
        regions.back().size += sizeof(T);
      else
        regions.push_back({indices[i] * sizeof(T), used, sizeof(T)});
    }
    const uint8_t* host = staging.download(buffer, regions);
    std::copy_n(reinterpret_cast<const T*>(host), i - done, out.begin() + done);
    done = i;
  }
  return out;
}

}  // namespace wasmgpu::bench
