#include "runtime/buffer.h"

#include <algorithm>
#include <cstring>

#include "runtime/device_state.h"
#include "runtime/vk_util.h"

namespace wasmgpu::runtime {

namespace {

constexpr uint64_t kPadding = 16;
// The staging buffer grows up to this size; larger transfers go in chunks.
constexpr uint64_t kStagingLimit = 64ull << 20;

// Uniform usage lets a Buffer bind to a foreign SPIR-V kernel's uniform block.
constexpr VkBufferUsageFlags kBufferUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                            VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

// Everything earlier on the queue that may touch a buffer: launches and copies.
constexpr VkPipelineStageFlags kEarlierStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kEarlierWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

Status check_range(const Buffer& buffer, uint64_t size, uint64_t offset, const char* what) {
  if (offset > buffer.size() || size > buffer.size() - offset)
    return make_error(ErrorCode::InvalidArgument,
                      std::string("Buffer::") + what + " of " + std::to_string(size) + " bytes at offset " +
                          std::to_string(offset) + " is outside the " + std::to_string(buffer.size()) + "-byte buffer");
  return {};
}

}  // namespace

Result<Buffer> create_buffer(DeviceState& device, uint64_t size, bool assign_wasm_address) {
  WASMGPU_TRY(device.ready());
  const uint64_t padded = std::max<uint64_t>(round_up(size, kPadding), kPadding);
  const DeviceLimits& limits = device.info.limits;
  if (limits.max_memory_allocation_size && padded > limits.max_memory_allocation_size)
    return make_error(ErrorCode::Unsupported, "cannot create a buffer of " + format_bytes(size) + ": Vulkan device '" +
                                                  device.info.name + "' allocates at most " +
                                                  format_bytes(limits.max_memory_allocation_size) +
                                                  " at once (maxMemoryAllocationSize)");
  if (limits.max_buffer_size && padded > limits.max_buffer_size)
    return make_error(ErrorCode::Unsupported, "cannot create a buffer of " + format_bytes(size) + ": Vulkan device '" +
                                                  device.info.name + "' has maxBufferSize " +
                                                  format_bytes(limits.max_buffer_size));
  WASMGPU_ASSIGN_OR_RETURN(RawBuffer raw, device.create_raw_buffer(padded, kBufferUsage, MemoryKind::Device));
  std::optional<uint32_t> wasm_address;
  if (assign_wasm_address) wasm_address = device.addresses.allocate(size);
  return Buffer(&device, raw, size, wasm_address);
}

Result<Buffer> create_staging_buffer(DeviceState& device, uint64_t size) {
  WASMGPU_TRY(device.ready());
  const uint64_t padded = std::max<uint64_t>(round_up(size, kPadding), kPadding);
  WASMGPU_ASSIGN_OR_RETURN(
      RawBuffer raw,
      device.create_raw_buffer(padded, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               MemoryKind::HostCached));
  return Buffer(&device, raw, size, std::nullopt);
}

Buffer::Buffer(DeviceState* device, RawBuffer raw, uint64_t size, std::optional<uint32_t> wasm_address)
    : device_(device), raw_(raw), size_(size), wasm_address_(wasm_address) {
  ++device_->live_children;
  if (wasm_address_) {
    device_->mapped[*wasm_address_] = MappedRange{size_, raw_.address};
    ++device_->mapping_generation;
  }
}

Buffer::Buffer(Buffer&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      raw_(std::exchange(other.raw_, RawBuffer{})),
      size_(std::exchange(other.size_, 0)),
      wasm_address_(std::exchange(other.wasm_address_, std::nullopt)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    raw_ = std::exchange(other.raw_, RawBuffer{});
    size_ = std::exchange(other.size_, 0);
    wasm_address_ = std::exchange(other.wasm_address_, std::nullopt);
  }
  return *this;
}

Buffer::~Buffer() { release(); }

void Buffer::release() {
  if (!device_) return;
  if (wasm_address_) {
    // The address can be reused at once: a launch still running (timed out)
    // captured this buffer's device address in its own region table.
    device_->mapped.erase(*wasm_address_);
    device_->addresses.free(*wasm_address_);
    ++device_->mapping_generation;
  }
  DeviceState* device = device_;
  device->destroy_later([device, raw = raw_]() mutable { device->destroy_raw_buffer(raw); });
  --device->live_children;
  device_ = nullptr;
  raw_ = RawBuffer{};
  wasm_address_.reset();
}

Status Buffer::write(const void* data, uint64_t size, uint64_t offset) {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "Buffer::write on a moved-from buffer");
  WASMGPU_TRY(check_range(*this, size, offset, "write"));
  DeviceState& device = *device_;
  WASMGPU_TRY(device.ready());
  if (size == 0) return {};
  if (raw_.mapped) {
    // Host writes before vkQueueSubmit are visible to later submissions.
    std::memcpy(static_cast<char*>(raw_.mapped) + offset, data, size);
    return {};
  }
  const auto* bytes = static_cast<const char*>(data);
  WASMGPU_TRY(device.ensure_raw_buffer(device.staging, std::min(size, kStagingLimit),
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       MemoryKind::Host));
  for (uint64_t done = 0; done < size;) {
    const uint64_t chunk = std::min(size - done, device.staging.size);
    std::memcpy(device.staging.mapped, bytes + done, chunk);
    WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, device.begin());
    memory_barrier(device, cmd, kEarlierStages, kEarlierWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy region{0, offset + done, chunk};
    device.vk.vkCmdCopyBuffer(cmd, device.staging.buffer, raw_.buffer, 1, &region);
    WASMGPU_TRY(device.submit_and_wait("a buffer upload"));
    done += chunk;
  }
  return {};
}

Status Buffer::read(void* out, uint64_t size, uint64_t offset) const {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "Buffer::read on a moved-from buffer");
  WASMGPU_TRY(check_range(*this, size, offset, "read"));
  DeviceState& device = *device_;
  WASMGPU_TRY(device.ready());
  if (size == 0) return {};
  if (raw_.mapped) {
    // Launches end with a shader-write -> host-read barrier, and the host
    // waited for their fence.
    std::memcpy(out, static_cast<const char*>(raw_.mapped) + offset, size);
    return {};
  }
  auto* bytes = static_cast<char*>(out);
  WASMGPU_TRY(device.ensure_raw_buffer(device.staging, std::min(size, kStagingLimit),
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       MemoryKind::Host));
  for (uint64_t done = 0; done < size;) {
    const uint64_t chunk = std::min(size - done, device.staging.size);
    WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, device.begin());
    memory_barrier(device, cmd, kEarlierStages, kEarlierWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy region{offset + done, 0, chunk};
    device.vk.vkCmdCopyBuffer(cmd, raw_.buffer, device.staging.buffer, 1, &region);
    memory_barrier(device, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    WASMGPU_TRY(device.submit_and_wait("a buffer download"));
    std::memcpy(bytes + done, device.staging.mapped, chunk);
    done += chunk;
  }
  return {};
}

Status Buffer::fill(uint32_t pattern) {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "Buffer::fill on a moved-from buffer");
  DeviceState& device = *device_;
  WASMGPU_TRY(device.ready());
  if (raw_.mapped) {
    auto* words = static_cast<uint32_t*>(raw_.mapped);
    std::fill(words, words + raw_.size / 4, pattern);
    return {};
  }
  WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, device.begin());
  memory_barrier(device, cmd, kEarlierStages, kEarlierWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_WRITE_BIT);
  device.vk.vkCmdFillBuffer(cmd, raw_.buffer, 0, VK_WHOLE_SIZE, pattern);
  return device.submit_and_wait("a buffer fill");
}

}  // namespace wasmgpu::runtime
