#include "runtime/launch_arena.h"

#include <algorithm>

#include "runtime/device.h"
#include "runtime/device_state.h"
#include "runtime/vk_util.h"

namespace wasmgpu::runtime {

namespace {

constexpr uint64_t kChunkBytes = 64 * 1024;
constexpr uint64_t kAlignment = 16;
constexpr VkBufferUsageFlags kArenaUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

}  // namespace

SharedRawBuffer::~SharedRawBuffer() {
  if (!device || !raw.buffer) return;
  device->destroy_later([device = device, raw = raw]() mutable { device->destroy_raw_buffer(raw); });
}

Result<LaunchArena> LaunchArena::create(Device& device) { return create(device.state()); }

Result<LaunchArena> LaunchArena::create(DeviceState& device) {
  WASMGPU_TRY(device.ready());
  return LaunchArena(&device);
}

LaunchArena::LaunchArena(DeviceState* device) : device_(device) { ++device_->live_children; }

LaunchArena::LaunchArena(LaunchArena&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      chunks_(std::move(other.chunks_)),
      current_(std::exchange(other.current_, 0)),
      kept_(std::move(other.kept_)) {
  other.chunks_.clear();
  other.kept_.clear();
}

LaunchArena& LaunchArena::operator=(LaunchArena&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    chunks_ = std::move(other.chunks_);
    other.chunks_.clear();
    current_ = std::exchange(other.current_, 0);
    kept_ = std::move(other.kept_);
    other.kept_.clear();
  }
  return *this;
}

LaunchArena::~LaunchArena() { release(); }

void LaunchArena::release() {
  if (!device_) return;
  kept_.clear();
  DeviceState* device = device_;
  for (Chunk& chunk : chunks_)
    device->destroy_later([device, raw = chunk.raw]() mutable { device->destroy_raw_buffer(raw); });
  chunks_.clear();
  --device->live_children;
  device_ = nullptr;
}

Result<LaunchArena::Allocation> LaunchArena::allocate(uint64_t size) {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "allocation from a moved-from LaunchArena");
  size = std::max<uint64_t>(round_up(size, kAlignment), kAlignment);
  // Later chunks are tried in order; earlier ones filled up already.
  for (; current_ < chunks_.size(); ++current_) {
    Chunk& chunk = chunks_[current_];
    if (chunk.raw.size - chunk.used >= size) {
      Allocation allocation{static_cast<uint8_t*>(chunk.raw.mapped) + chunk.used, chunk.raw.address + chunk.used};
      chunk.used += size;
      return allocation;
    }
  }
  const uint64_t bytes = std::max({size, kChunkBytes, chunks_.empty() ? 0 : 2 * chunks_.back().raw.size});
  WASMGPU_ASSIGN_OR_RETURN(RawBuffer raw, device_->create_raw_buffer(bytes, kArenaUsage, MemoryKind::Host));
  chunks_.push_back(Chunk{raw, size});
  current_ = chunks_.size() - 1;
  return Allocation{static_cast<uint8_t*>(raw.mapped), raw.address};
}

void LaunchArena::reset() {
  for (Chunk& chunk : chunks_) chunk.used = 0;
  current_ = 0;
  kept_.clear();
}

void LaunchArena::keep(std::shared_ptr<SharedRawBuffer> buffer) {
  if (!buffer) return;
  if (std::find(kept_.begin(), kept_.end(), buffer) == kept_.end()) kept_.push_back(std::move(buffer));
}

uint64_t LaunchArena::used_bytes() const {
  uint64_t used = 0;
  for (const Chunk& chunk : chunks_) used += chunk.used;
  return used;
}

uint64_t LaunchArena::capacity_bytes() const {
  uint64_t capacity = 0;
  for (const Chunk& chunk : chunks_) capacity += chunk.raw.size;
  return capacity;
}

}  // namespace wasmgpu::runtime
