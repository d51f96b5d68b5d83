#include "runtime/image.h"

#include <algorithm>
#include <cstring>

#include "abi/image_abi.h"
#include "runtime/bindless.h"
#include "runtime/device_state.h"
#include "runtime/vk_util.h"

namespace wasmgpu::runtime {

namespace {

// The staging buffer grows up to this size; larger images go in chunks of rows.
constexpr uint64_t kStagingLimit = 64ull << 20;

// Everything earlier on the queue that may touch an image: launches and copies.
constexpr VkPipelineStageFlags kEarlierStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kEarlierWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
// Everything later that may touch it, once back in GENERAL.
constexpr VkPipelineStageFlags kLaterStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kLaterAccesses =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

VkFormat vk_format(ImageFormat format) {
  switch (format) {
    case ImageFormat::Rgba8Unorm: return VK_FORMAT_R8G8B8A8_UNORM;
    case ImageFormat::Rgba32Float: return VK_FORMAT_R32G32B32A32_SFLOAT;
    case ImageFormat::R32Float: return VK_FORMAT_R32_SFLOAT;
  }
  return VK_FORMAT_UNDEFINED;
}

std::string describe(const ImageDesc& d) {
  std::string text = std::to_string(d.width) + "x" + std::to_string(d.height);
  if (d.three_d) text += "x" + std::to_string(d.depth);
  return text + " " + to_string(d.format) + " image";
}

void write_image_descriptor(DeviceState& device, uint32_t binding, uint32_t handle, VkDescriptorType type,
                            VkImageView view, VkSampler sampler) {
  VkDescriptorImageInfo info{sampler, view, view ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_UNDEFINED};
  VkWriteDescriptorSet write{};
  write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  write.dstSet = device.bindless->set;
  write.dstBinding = binding;
  write.dstArrayElement = handle;
  write.descriptorCount = 1;
  write.descriptorType = type;
  write.pImageInfo = &info;
  device.vk.vkUpdateDescriptorSets(device.device, 1, &write, 0, nullptr);
}

// A layout transition of the whole image, ordering the accesses before and after it.
void image_barrier(DeviceState& device, VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                   VkPipelineStageFlags src_stages, VkAccessFlags src_access, VkPipelineStageFlags dst_stages,
                   VkAccessFlags dst_access) {
  VkImageMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  barrier.oldLayout = from;
  barrier.newLayout = to;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  device.vk.vkCmdPipelineBarrier(cmd, src_stages, dst_stages, 0, 0, nullptr, 0, nullptr, 1, &barrier);
}

// Gives `handle` back once no pending work can use it; its table entry is
// cleared at once, so kernels launched from now on trap on it.
void release_handle(DeviceState& device, uint32_t handle) {
  if (handle == 0 || !device.bindless) return;
  write_handle_entry(device, handle, 0, 0, 0, 0);
  device.destroy_later([&device, handle] { free_handle(device, handle); });
}

}  // namespace

uint32_t texel_bytes(ImageFormat format) {
  switch (format) {
    case ImageFormat::Rgba8Unorm: return 4;
    case ImageFormat::Rgba32Float: return 16;
    case ImageFormat::R32Float: return 4;
  }
  return 0;
}

const char* to_string(ImageFormat format) {
  switch (format) {
    case ImageFormat::Rgba8Unorm: return "rgba8";
    case ImageFormat::Rgba32Float: return "rgba32f";
    case ImageFormat::R32Float: return "r32f";
  }
  return "?";
}

// ---------------------------------------------------------------------- Image

Result<Image> Image::create(DeviceState& device, const ImageDesc& desc_in) {
  WASMGPU_TRY(device.ready());
  ImageDesc desc = desc_in;
  if (!desc.three_d) desc.depth = 1;
  const std::string what = describe(desc);
  if (desc.width == 0 || desc.height == 0 || desc.depth == 0)
    return make_error(ErrorCode::InvalidArgument, "cannot create a " + what + ": every dimension must be at least 1");
  if (!desc.storage && !desc.sampled)
    return make_error(ErrorCode::InvalidArgument,
                      "cannot create a " + what + ": it must be a storage image, a sampled image or both");
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(device.physical_device, &properties);
  const uint32_t max_size =
      desc.three_d ? properties.limits.maxImageDimension3D : properties.limits.maxImageDimension2D;
  if (std::max({desc.width, desc.height, desc.depth}) > max_size)
    return make_error(ErrorCode::Unsupported, "cannot create a " + what + ": Vulkan device '" + device.info.name +
                                                  "' allows at most " + std::to_string(max_size) +
                                                  " texels per dimension of a " + (desc.three_d ? "3D" : "2D") +
                                                  " image");
  const VkFormat format = vk_format(desc.format);
  VkFormatProperties format_properties{};
  vkGetPhysicalDeviceFormatProperties(device.physical_device, format, &format_properties);
  const VkFormatFeatureFlags have = format_properties.optimalTilingFeatures;
  VkFormatFeatureFlags need = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  if (desc.storage) need |= VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
  if (desc.sampled) need |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  if ((have & need) != need)
    return make_error(ErrorCode::Unsupported, "cannot create a " + what + ": Vulkan device '" + device.info.name +
                                                  "' does not support " + to_string(desc.format) + " as a " +
                                                  (desc.storage && desc.sampled ? "storage and sampled"
                                                   : desc.storage               ? "storage"
                                                                                : "sampled") +
                                                  " image");
  WASMGPU_TRY(bindless_set(device));

  Image image;
  image.device_ = &device;
  image.desc_ = desc;
  ++device.live_children;  // release() undoes everything from here on
  auto& vk = device.vk;

  VkImageCreateInfo image_info{};
  image_info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  image_info.imageType = desc.three_d ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
  image_info.format = format;
  image_info.extent = {desc.width, desc.height, desc.depth};
  image_info.mipLevels = 1;
  image_info.arrayLayers = 1;
  image_info.samples = VK_SAMPLE_COUNT_1_BIT;
  image_info.tiling = VK_IMAGE_TILING_OPTIMAL;
  image_info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                     (desc.storage ? VK_IMAGE_USAGE_STORAGE_BIT : 0) | (desc.sampled ? VK_IMAGE_USAGE_SAMPLED_BIT : 0);
  image_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  image_info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  WASMGPU_TRY(device.check("vkCreateImage (" + what + ")",
                           vk.vkCreateImage(device.device, &image_info, nullptr, &image.image_)));
  VkMemoryRequirements requirements{};
  vk.vkGetImageMemoryRequirements(device.device, image.image_, &requirements);
  std::optional<uint32_t> type = device.find_memory_type(requirements.memoryTypeBits, MemoryKind::Device);
  if (!type) return make_error(ErrorCode::Unsupported, "no suitable Vulkan memory type for a " + what);
  VkMemoryAllocateInfo allocate_info{};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.allocationSize = requirements.size;
  allocate_info.memoryTypeIndex = *type;
  WASMGPU_TRY(device.check("vkAllocateMemory (" + what + ")",
                           vk.vkAllocateMemory(device.device, &allocate_info, nullptr, &image.memory_)));
  WASMGPU_TRY(device.check("vkBindImageMemory", vk.vkBindImageMemory(device.device, image.image_, image.memory_, 0)));
  VkImageViewCreateInfo view_info{};
  view_info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
  view_info.image = image.image_;
  view_info.viewType = desc.three_d ? VK_IMAGE_VIEW_TYPE_3D : VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = format;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  WASMGPU_TRY(
      device.check("vkCreateImageView", vk.vkCreateImageView(device.device, &view_info, nullptr, &image.view_)));

  // Zeroed, then GENERAL (the layout between commands, see image.h),
  // before any kernel can see the handle.
  WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, device.begin());
  image_barrier(device, cmd, image.image_, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  VkClearColorValue zero{};
  VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vk.vkCmdClearColorImage(cmd, image.image_, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &range);
  image_barrier(device, cmd, image.image_, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kLaterStages, kLaterAccesses);
  WASMGPU_TRY(device.submit_and_wait("clearing a new " + what));

  WASMGPU_ASSIGN_OR_RETURN(image.handle_, allocate_handle(device, what.c_str()));
  if (desc.storage)
    write_image_descriptor(device, desc.three_d ? abi::kBindingStorageImage3D : abi::kBindingStorageImage2D,
                           image.handle_, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, image.view_, VK_NULL_HANDLE);
  if (desc.sampled)
    write_image_descriptor(device, desc.three_d ? abi::kBindingSampledImage3D : abi::kBindingSampledImage2D,
                           image.handle_, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, image.view_, VK_NULL_HANDLE);
  const uint32_t flags = (desc.storage ? abi::kHandleStorage : 0) | (desc.sampled ? abi::kHandleSampled : 0) |
                         (desc.three_d ? abi::kHandle3D : 0);
  write_handle_entry(device, image.handle_, desc.width, desc.height, desc.depth, flags);
  return image;
}

Image::Image(Image&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      image_(std::exchange(other.image_, VK_NULL_HANDLE)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      view_(std::exchange(other.view_, VK_NULL_HANDLE)),
      desc_(other.desc_),
      handle_(std::exchange(other.handle_, 0)) {}

Image& Image::operator=(Image&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    image_ = std::exchange(other.image_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    view_ = std::exchange(other.view_, VK_NULL_HANDLE);
    desc_ = other.desc_;
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

Image::~Image() { release(); }

void Image::release() {
  if (!device_) return;
  DeviceState* device = device_;
  release_handle(*device, handle_);
  device->destroy_later([device, image = image_, memory = memory_, view = view_] {
    if (view) device->vk.vkDestroyImageView(device->device, view, nullptr);
    if (image) device->vk.vkDestroyImage(device->device, image, nullptr);
    if (memory) device->vk.vkFreeMemory(device->device, memory, nullptr);
  });
  --device->live_children;
  device_ = nullptr;
  image_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  view_ = VK_NULL_HANDLE;
  handle_ = 0;
}

uint64_t Image::size_bytes() const {
  return uint64_t(desc_.width) * desc_.height * desc_.depth * texel_bytes(desc_.format);
}

namespace {

// Copies the whole image to (download) or from (upload) host memory in
// chunks of rows that fit the staging buffer.
Status transfer(DeviceState& device, VkImage image, const ImageDesc& desc, uint8_t* host, bool download) {
  const uint64_t row = uint64_t(desc.width) * texel_bytes(desc.format);
  const uint64_t total = row * desc.height * desc.depth;
  WASMGPU_TRY(device.ensure_raw_buffer(device.staging, std::min(total, std::max(kStagingLimit, row)),
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       MemoryKind::Host));
  const uint32_t rows_per_chunk = uint32_t(std::min<uint64_t>(device.staging.size / row, desc.height));
  for (uint32_t z = 0; z < desc.depth; ++z) {
    for (uint32_t y = 0; y < desc.height; y += rows_per_chunk) {
      const uint32_t rows = std::min(rows_per_chunk, desc.height - y);
      uint8_t* at = host + (uint64_t(z) * desc.height + y) * row;
      const uint64_t bytes = rows * row;
      if (!download) std::memcpy(device.staging.mapped, at, bytes);
      WASMGPU_ASSIGN_OR_RETURN(VkCommandBuffer cmd, device.begin());
      // GENERAL -> the transfer's optimal layout -> GENERAL, ordered after
      // earlier launches and copies and before later ones.
      const VkImageLayout layout =
          download ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
      const VkAccessFlags access = download ? VK_ACCESS_TRANSFER_READ_BIT : VK_ACCESS_TRANSFER_WRITE_BIT;
      image_barrier(device, cmd, image, VK_IMAGE_LAYOUT_GENERAL, layout, kEarlierStages,
                    kEarlierWrites | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT, access);
      VkBufferImageCopy region{};
      region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      region.imageOffset = {0, int32_t(y), int32_t(z)};
      region.imageExtent = {desc.width, rows, 1};
      if (download)
        device.vk.vkCmdCopyImageToBuffer(cmd, image, layout, device.staging.buffer, 1, &region);
      else
        device.vk.vkCmdCopyBufferToImage(cmd, device.staging.buffer, image, layout, 1, &region);
      image_barrier(device, cmd, image, layout, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TRANSFER_BIT, access,
                    kLaterStages, kLaterAccesses);
      if (download)
        memory_barrier(device, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      WASMGPU_TRY(device.submit_and_wait(download ? "an image download" : "an image upload"));
      if (download) std::memcpy(at, device.staging.mapped, bytes);
    }
  }
  return {};
}

}  // namespace

Status Image::write(const void* data, uint64_t size) {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "Image::write on a moved-from image");
  if (size != size_bytes())
    return make_error(ErrorCode::InvalidArgument, "Image::write of " + std::to_string(size) + " bytes to a " +
                                                      describe(desc_) + " of " + std::to_string(size_bytes()) +
                                                      " bytes (the whole image is written)");
  WASMGPU_TRY(device_->ready());
  return transfer(*device_, image_, desc_, static_cast<uint8_t*>(const_cast<void*>(data)), false);
}

Status Image::read(void* out, uint64_t size) const {
  if (!device_) return make_error(ErrorCode::InvalidArgument, "Image::read on a moved-from image");
  if (size != size_bytes())
    return make_error(ErrorCode::InvalidArgument, "Image::read of " + std::to_string(size) + " bytes from a " +
                                                      describe(desc_) + " of " + std::to_string(size_bytes()) +
                                                      " bytes (the whole image is read)");
  WASMGPU_TRY(device_->ready());
  return transfer(*device_, image_, desc_, static_cast<uint8_t*>(out), true);
}

// -------------------------------------------------------------------- Sampler

Result<Sampler> Sampler::create(DeviceState& device, const SamplerDesc& desc) {
  WASMGPU_TRY(device.ready());
  WASMGPU_TRY(bindless_set(device));
  Sampler sampler;
  sampler.device_ = &device;
  sampler.desc_ = desc;
  ++device.live_children;
  const VkFilter filter = desc.filter == Filter::Linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
  const VkSamplerAddressMode mode =
      desc.address_mode == AddressMode::Repeat ? VK_SAMPLER_ADDRESS_MODE_REPEAT : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  VkSamplerCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
  info.magFilter = filter;
  info.minFilter = filter;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = mode;
  info.maxLod = VK_LOD_CLAMP_NONE;
  WASMGPU_TRY(
      device.check("vkCreateSampler", device.vk.vkCreateSampler(device.device, &info, nullptr, &sampler.sampler_)));
  WASMGPU_ASSIGN_OR_RETURN(sampler.handle_, allocate_handle(device, "a sampler"));
  write_image_descriptor(device, abi::kBindingSampler, sampler.handle_, VK_DESCRIPTOR_TYPE_SAMPLER, VK_NULL_HANDLE,
                         sampler.sampler_);
  write_handle_entry(device, sampler.handle_, 0, 0, 0, abi::kHandleSampler);
  return sampler;
}

Sampler::Sampler(Sampler&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      sampler_(std::exchange(other.sampler_, VK_NULL_HANDLE)),
      desc_(other.desc_),
      handle_(std::exchange(other.handle_, 0)) {}

Sampler& Sampler::operator=(Sampler&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, nullptr);
    sampler_ = std::exchange(other.sampler_, VK_NULL_HANDLE);
    desc_ = other.desc_;
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

Sampler::~Sampler() { release(); }

void Sampler::release() {
  if (!device_) return;
  DeviceState* device = device_;
  release_handle(*device, handle_);
  device->destroy_later([device, sampler = sampler_] {
    if (sampler) device->vk.vkDestroySampler(device->device, sampler, nullptr);
  });
  --device->live_children;
  device_ = nullptr;
  sampler_ = VK_NULL_HANDLE;
  handle_ = 0;
}

}  // namespace wasmgpu::runtime
