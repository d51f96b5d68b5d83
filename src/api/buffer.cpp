// Buffers of the public API over the device's buffers.
#include "wasmgpu/buffer.hpp"

#include <cstring>

#include "api/impl.h"
#include "support/units.h"

namespace wasmgpu {
namespace detail {

void BufferImpl::release() {
  released = true;
  if (in_flight == 0) buffer.reset();
}

void BufferImpl::retire_use() {
  if (in_flight > 0) --in_flight;
  if (released && in_flight == 0) buffer.reset();
}

}  // namespace detail

using detail::BufferImpl;
using detail::DeviceImpl;

namespace {

BufferImpl& live(const std::shared_ptr<BufferImpl>& impl, const char* what) {
  if (!impl) detail::raise(ErrorKind::UseAfterMove, std::string("Buffer::") + what + " on a moved-from buffer");
  return *impl;
}

// Host access must not race with a submission that may use the buffer.
void check_idle(BufferImpl& buffer, const char* what) {
  if (buffer.in_flight == 0) return;
  buffer.device->collect();
  if (buffer.in_flight != 0)
    detail::raise(ErrorKind::InvalidArgument,
                  std::string("Buffer::") + what + " of a buffer (" + format_bytes(buffer.size) +
                      ") that a submission still running uses; wait for the submission first");
}

void check_range(const BufferImpl& buffer, uint64_t bytes, uint64_t offset, const char* what) {
  if (offset > buffer.size || bytes > buffer.size - offset)
    detail::raise(ErrorKind::BufferTooSmall, std::string("Buffer::") + what + " of " + std::to_string(bytes) +
                                                 " bytes at offset " + std::to_string(offset) + " does not fit the " +
                                                 std::to_string(buffer.size) + "-byte buffer");
}

}  // namespace

BufferBase::BufferBase(std::shared_ptr<DeviceImpl> device, std::shared_ptr<BufferImpl> impl)
    : device_(std::move(device)), impl_(std::move(impl)) {}

BufferBase::BufferBase(BufferBase&& other) noexcept = default;

BufferBase& BufferBase::operator=(BufferBase&& other) noexcept {
  if (this != &other) {
    if (impl_) impl_->release();
    impl_ = std::move(other.impl_);
    device_ = std::move(other.device_);
  }
  return *this;
}

BufferBase::~BufferBase() {
  if (impl_) impl_->release();
}

uint64_t BufferBase::size_bytes() const { return live(impl_, "size_bytes").size; }
uint32_t BufferBase::element_size() const { return live(impl_, "element_size").element_size; }
const DeviceInfo& BufferBase::device() const { return live(impl_, "device").device->info; }

void BufferBase::read_bytes(std::span<std::byte> out, uint64_t offset) const {
  BufferImpl& buffer = live(impl_, "read");
  check_range(buffer, out.size(), offset, "read");
  check_idle(buffer, "read");
  detail::check(buffer.buffer->read(out.data(), out.size(), offset), ErrorKind::Vulkan);
}

std::vector<std::byte> BufferBase::read_bytes() const {
  std::vector<std::byte> bytes(static_cast<size_t>(size_bytes()));
  read_bytes(bytes, 0);
  return bytes;
}

void BufferBase::write_bytes(std::span<const std::byte> data, uint64_t offset) {
  BufferImpl& buffer = live(impl_, "write");
  check_range(buffer, data.size(), offset, "write");
  check_idle(buffer, "write");
  detail::check(buffer.buffer->write(data.data(), data.size(), offset), ErrorKind::Vulkan);
}

void BufferBase::fill(uint32_t pattern) {
  BufferImpl& buffer = live(impl_, "fill");
  check_idle(buffer, "fill");
  detail::check(buffer.buffer->fill(pattern), ErrorKind::Vulkan);
}

uint64_t BufferBase::device_address() const {
  BufferImpl& buffer = live(impl_, "device_address");
  if (buffer.staging)
    detail::raise(ErrorKind::Unsupported, "Buffer::device_address of a StagingBuffer: kernels cannot reach it");
  if (!buffer.buffer) detail::raise(ErrorKind::UseAfterMove, "Buffer::device_address of a destroyed buffer");
  std::optional<uint64_t> address = buffer.buffer->device_address();
  if (!address)
    detail::raise(ErrorKind::Unsupported, "Buffer::device_address: " + detail::device_label(*buffer.device) +
                                              " has no buffer device addresses");
  return *address;
}

std::span<std::byte> StagingBuffer::data() {
  BufferImpl& buffer = live(detail::Access::buffer(*this), "data");
  return {buffer.buffer->host_data(), size_t(buffer.size)};
}

BufferBase Device::create_buffer(uint64_t bytes, uint32_t element_size) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  auto impl = std::make_shared<BufferImpl>();
  impl->device = impl_.get();
  impl->size = bytes;
  impl->element_size = element_size;
  std::unique_ptr<device::BackendBuffer> buffer =
      detail::check(impl_->backend->create_buffer(bytes), ErrorKind::Unsupported);
  detail::check(buffer->fill(0), ErrorKind::Vulkan);
  impl->buffer = std::move(buffer);
  return BufferBase(impl_, std::move(impl));
}

BufferBase Device::buffer_bytes(uint64_t bytes) { return create_buffer(bytes, 1); }

StagingBuffer Device::staging_buffer(uint64_t bytes) {
  if (!impl_) detail::raise(ErrorKind::UseAfterMove, "use of a moved-from Device");
  auto impl = std::make_shared<BufferImpl>();
  impl->device = impl_.get();
  impl->size = bytes;
  impl->staging = true;
  std::unique_ptr<device::BackendBuffer> buffer =
      detail::check(impl_->backend->create_staging_buffer(bytes), ErrorKind::Unsupported);
  if (!buffer->host_data())
    detail::raise(ErrorKind::Unsupported,
                  "the staging buffer of " + detail::device_label(*impl_) + " has no host memory");
  std::memset(buffer->host_data(), 0, size_t(bytes));
  impl->buffer = std::move(buffer);
  return StagingBuffer(BufferBase(impl_, std::move(impl)));
}

}  // namespace wasmgpu
