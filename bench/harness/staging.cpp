#include "harness/staging.h"

#include <fmt/core.h>

#include <optional>
#include <stdexcept>

#include "harness/workload.h"
#include "runtime/device_state.h"

namespace wasmgpu::bench {
namespace {

// Host-visible; host-cached (fast CPU reads), coherent and in system memory
// (not a BAR window) when possible.
std::optional<uint32_t> staging_type(const VkPhysicalDeviceMemoryProperties& properties, uint32_t type_bits) {
  std::optional<uint32_t> best;
  int best_score = -1;
  for (uint32_t i = 0; i < properties.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    const VkMemoryPropertyFlags f = properties.memoryTypes[i].propertyFlags;
    if (!(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) continue;
    if (f & (VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT)) continue;
    const int score = (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT ? 4 : 0) +
                      (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT ? 2 : 0) +
                      (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? 0 : 1);
    if (score > best_score) best = i, best_score = score;
  }
  return best;
}

void check_range(uint64_t offset, uint64_t bytes, uint64_t size, const char* what) {
  if (offset > size || bytes > size - offset)
    throw std::logic_error(fmt::format("staging {} of {} bytes at {}: outside {} bytes", what, bytes, offset, size));
}

}  // namespace

Staging::Staging(Gpu& gpu, uint64_t capacity) : gpu_(gpu), capacity_(capacity) {
  const VolkDeviceTable& vk = gpu.vk();
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = capacity;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check_vk(vk.vkCreateBuffer(gpu.handle(), &info, nullptr, &buffer_), "vkCreateBuffer (staging)");
  VkMemoryRequirements requirements{};
  vk.vkGetBufferMemoryRequirements(gpu.handle(), buffer_, &requirements);
  const VkPhysicalDeviceMemoryProperties& properties = gpu.device().state().memory_properties;
  const std::optional<uint32_t> type = staging_type(properties, requirements.memoryTypeBits);
  void* mapped = nullptr;
  if (type) {
    VkMemoryAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = *type;
    if (vk.vkAllocateMemory(gpu.handle(), &allocate, nullptr, &memory_) != VK_SUCCESS) memory_ = VK_NULL_HANDLE;
  }
  if (memory_ && (vk.vkBindBufferMemory(gpu.handle(), buffer_, memory_, 0) != VK_SUCCESS ||
                  vk.vkMapMemory(gpu.handle(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped) != VK_SUCCESS)) {
    vk.vkFreeMemory(gpu.handle(), memory_, nullptr);
    memory_ = VK_NULL_HANDLE;
  }
  if (!memory_) {
    vk.vkDestroyBuffer(gpu.handle(), buffer_, nullptr);
    buffer_ = VK_NULL_HANDLE;
    fallback_.resize(capacity);
    return;
  }
  mapped_ = static_cast<uint8_t*>(mapped);
  coherent_ = properties.memoryTypes[*type].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
}

Staging::~Staging() {
  const VolkDeviceTable& vk = gpu_.vk();
  if (buffer_) vk.vkDestroyBuffer(gpu_.handle(), buffer_, nullptr);
  if (memory_) vk.vkFreeMemory(gpu_.handle(), memory_, nullptr);  // unmaps
}

void Staging::upload(runtime::Buffer& buffer, uint64_t offset, uint64_t bytes) {
  check_range(0, bytes, capacity_, "upload");
  check_range(offset, bytes, buffer.size(), "upload");
  if (bytes == 0) return;
  if (!buffer_) return bench::upload(buffer, fallback_.data(), bytes, offset);
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
  if (!coherent_)
    check_vk(gpu_.vk().vkFlushMappedMemoryRanges(gpu_.handle(), 1, &range), "vkFlushMappedMemoryRanges");
  // Gpu::run orders host writes before the submission and the copy before
  // later work with its barriers.
  const VkBufferCopy region{0, offset, bytes};
  gpu_.run([&](VkCommandBuffer cmd) { gpu_.vk().vkCmdCopyBuffer(cmd, buffer_, buffer.handle(), 1, &region); });
}

const uint8_t* Staging::download(const runtime::Buffer& buffer, std::span<const VkBufferCopy> regions) {
  for (const VkBufferCopy& r : regions) {
    check_range(r.dstOffset, r.size, capacity_, "download");
    check_range(r.srcOffset, r.size, buffer.size(), "download");
  }
  if (!buffer_) {
    for (const VkBufferCopy& r : regions) bench::download(buffer, fallback_.data() + r.dstOffset, r.size, r.srcOffset);
    return fallback_.data();
  }
  if (regions.empty()) return mapped_;
  gpu_.run([&](VkCommandBuffer cmd) {
    gpu_.vk().vkCmdCopyBuffer(cmd, buffer.handle(), buffer_, uint32_t(regions.size()), regions.data());
  });
  if (!coherent_) {
    VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
    check_vk(gpu_.vk().vkInvalidateMappedMemoryRanges(gpu_.handle(), 1, &range), "vkInvalidateMappedMemoryRanges");
  }
  return mapped_;
}

const uint8_t* Staging::download(const runtime::Buffer& buffer, uint64_t offset, uint64_t bytes) {
  const VkBufferCopy region{offset, 0, bytes};
  return download(buffer, std::span<const VkBufferCopy>(&region, bytes ? 1 : 0));
}

}  // namespace wasmgpu::bench
