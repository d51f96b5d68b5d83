// Images and samplers of the public API over the device's images and
// samplers; lifetimes as for buffers (buffer.cpp).
#include "wasmgpu/image.hpp"

#include "api/impl.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace detail {

void ImageImpl::release() {
  released = true;
  if (in_flight == 0) image.reset();
}

void ImageImpl::retire_use() {
  if (in_flight > 0) --in_flight;
  if (released && in_flight == 0) image.reset();
}

void SamplerImpl::release() {
  released = true;
  if (in_flight == 0) sampler.reset();
}

void SamplerImpl::retire_use() {
  if (in_flight > 0) --in_flight;
  if (released && in_flight == 0) sampler.reset();
}

}  // namespace detail

using detail::DeviceImpl;
using detail::ImageImpl;
using detail::SamplerImpl;

namespace {

device::ImageFormat device_format(ImageFormat format) {
  switch (format) {
    case ImageFormat::Rgba8: return device::ImageFormat::Rgba8Unorm;
    case ImageFormat::Rgba32F: return device::ImageFormat::Rgba32Float;
    case ImageFormat::R32F: return device::ImageFormat::R32Float;
  }
  return device::ImageFormat::Rgba8Unorm;
}

ImageImpl& live(const std::shared_ptr<ImageImpl>& impl, const char* what) {
  if (!impl) detail::raise(ErrorKind::UseAfterMove, std::string("Image::") + what + " on a moved-from image");
  return *impl;
}

SamplerImpl& live(const std::shared_ptr<SamplerImpl>& impl, const char* what) {
  if (!impl) detail::raise(ErrorKind::UseAfterMove, std::string("Sampler::") + what + " on a moved-from sampler");
  return *impl;
}

// Host access must not race with a submission that may use the image.
void check_idle(ImageImpl& image, const char* what) {
  if (image.in_flight == 0) return;
  image.device->collect();
  if (image.in_flight != 0)
    detail::raise(ErrorKind::InvalidArgument, std::string("Image::") + what +
                                                  " of an image that a submission still running uses; wait for "
                                                  "the submission first");
}

void check_size(const ImageImpl& image, uint64_t bytes, const char* what) {
  if (bytes != image.image->size_bytes())
    detail::raise(ErrorKind::BufferTooSmall,
                  std::string("Image::") + what + " of " + std::to_string(bytes) + " bytes; the " +
                      std::to_string(image.image->desc().width) + "x" + std::to_string(image.image->desc().height) +
                      (image.image->desc().three_d ? "x" + std::to_string(image.image->desc().depth) : std::string()) +
                      " " + to_string(image.format) + " image has " + std::to_string(image.image->size_bytes()) +
                      " (images move whole)");
}

// Creation errors: Unsupported for a device without descriptor indexing or a
// format it lacks, InvalidArgument for bad sizes (their codes, set by
// runtime/image.cpp), else Vulkan.
ErrorKind creation_error_kind(const Error& error) { return detail::classify(error, ErrorKind::Vulkan); }

}  // namespace

uint32_t texel_bytes(ImageFormat format) { return device::texel_bytes(device_format(format)); }
const char* to_string(ImageFormat format) { return device::to_string(device_format(format)); }

Image::Image(std::shared_ptr<DeviceImpl> device, std::shared_ptr<ImageImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}
Image::Image(Image&&) noexcept = default;
Image& Image::operator=(Image&& other) noexcept {
  if (this != &other) {
    if (impl_) impl_->release();
    impl_ = std::move(other.impl_);
    device_ = std::move(other.device_);
  }
  return *this;
}
Image::~Image() {
  if (impl_) impl_->release();
}

uint32_t Image::width() const { return live(impl_, "width").image->desc().width; }
uint32_t Image::height() const { return live(impl_, "height").image->desc().height; }
uint32_t Image::depth() const { return live(impl_, "depth").image->desc().depth; }
bool Image::is_3d() const { return live(impl_, "is_3d").image->desc().three_d; }
ImageFormat Image::format() const { return live(impl_, "format").format; }
ImageUsage Image::usage() const { return live(impl_, "usage").usage; }
uint64_t Image::size_bytes() const { return live(impl_, "size_bytes").image->size_bytes(); }
uint32_t Image::handle() const { return live(impl_, "handle").image->handle(); }
const DeviceInfo& Image::device() const { return live(impl_, "device").device->info; }

void Image::write_bytes(std::span<const std::byte> data) {
  ImageImpl& image = live(impl_, "write");
  check_size(image, data.size(), "write");
  check_idle(image, "write");
  detail::check(image.image->write(data.data(), data.size()), ErrorKind::Vulkan);
}

void Image::read_into(std::span<std::byte> out) const {
  ImageImpl& image = live(impl_, "read");
  check_size(image, out.size(), "read");
  check_idle(image, "read");
  detail::check(image.image->read(out.data(), out.size()), ErrorKind::Vulkan);
}

std::vector<std::byte> Image::read_bytes() const {
  std::vector<std::byte> bytes(static_cast<size_t>(size_bytes()));
  read_into(bytes);
  return bytes;
}

Sampler::Sampler(std::shared_ptr<DeviceImpl> device, std::shared_ptr<SamplerImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}
Sampler::Sampler(Sampler&&) noexcept = default;
Sampler& Sampler::operator=(Sampler&& other) noexcept {
  if (this != &other) {
    if (impl_) impl_->release();
    impl_ = std::move(other.impl_);
    device_ = std::move(other.device_);
  }
  return *this;
}
Sampler::~Sampler() {
  if (impl_) impl_->release();
}

Filter Sampler::filter() const { return live(impl_, "filter").filter; }
AddressMode Sampler::address_mode() const { return live(impl_, "address_mode").address_mode; }
uint32_t Sampler::handle() const { return live(impl_, "handle").sampler->handle(); }

Image Device::create_image(uint32_t width, uint32_t height, uint32_t depth, bool three_d, ImageFormat format,
                           ImageUsage usage) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  device::ImageDesc desc;
  desc.width = width;
  desc.height = height;
  desc.depth = depth;
  desc.three_d = three_d;
  desc.format = device_format(format);
  desc.storage = has_usage(usage, ImageUsage::Storage);
  desc.sampled = has_usage(usage, ImageUsage::Sampled);
  auto impl = std::make_shared<ImageImpl>();
  impl->device = impl_.get();
  impl->format = format;
  impl->usage = usage;
  Result<std::unique_ptr<device::BackendImage>> image = impl_->backend->create_image(desc);
  if (!image.ok()) detail::raise(creation_error_kind(image.error()), image.error());
  impl->image = std::move(image).value();
  return Image(impl_, std::move(impl));
}

Image Device::image_2d(uint32_t width, uint32_t height, ImageFormat format, ImageUsage usage) {
  return create_image(width, height, 1, false, format, usage);
}

Image Device::image_3d(uint32_t width, uint32_t height, uint32_t depth, ImageFormat format, ImageUsage usage) {
  return create_image(width, height, depth, true, format, usage);
}

Sampler Device::sampler(Filter filter, AddressMode address_mode) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  device::SamplerDesc desc;
  desc.filter = filter == Filter::Linear ? device::Filter::Linear : device::Filter::Nearest;
  desc.address_mode =
      address_mode == AddressMode::Repeat ? device::AddressMode::Repeat : device::AddressMode::ClampToEdge;
  auto impl = std::make_shared<SamplerImpl>();
  impl->device = impl_.get();
  impl->filter = filter;
  impl->address_mode = address_mode;
  Result<std::unique_ptr<device::BackendSampler>> sampler = impl_->backend->create_sampler(desc);
  if (!sampler.ok()) detail::raise(creation_error_kind(sampler.error()), sampler.error());
  impl->sampler = std::move(sampler).value();
  return Sampler(impl_, std::move(impl));
}

}  // namespace wasmgpu
