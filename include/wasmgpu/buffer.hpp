// Device buffers: kernels see them as pointers (wasm) or storage buffers
// (SPIR-V). Created by Device::buffer<T>(count), Device::upload(values) or
// Device::buffer_bytes(bytes).
//
// read() and write() are synchronous (they return when the bytes have
// arrived) and refuse a buffer that a submission still running may use
// (wait for it first): they never race with the GPU. Ranges are checked:
// a read or write outside the buffer throws BufferTooSmall.
//
// Destroying a buffer that a submission still uses is allowed: its memory is
// freed when that submission finishes. A buffer destroyed after being
// recorded into a CommandBuffer makes that CommandBuffer's submit() throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "wasmgpu/error.hpp"

namespace wasmgpu {

class Device;
struct DeviceInfo;

namespace detail {
struct BufferImpl;
struct DeviceImpl;
struct Access;
}  // namespace detail

// An untyped buffer of size_bytes() bytes. Move-only; a moved-from buffer
// throws UseAfterMove from every call but valid().
class BufferBase {
 public:
  BufferBase(BufferBase&&) noexcept;
  BufferBase& operator=(BufferBase&&) noexcept;
  ~BufferBase();
  BufferBase(const BufferBase&) = delete;
  BufferBase& operator=(const BufferBase&) = delete;

  bool valid() const { return impl_ != nullptr; }
  uint64_t size_bytes() const;
  // Bytes per element for typed buffers, 1 for buffer_bytes() buffers.
  uint32_t element_size() const;
  // The device this buffer lives on.
  const DeviceInfo& device() const;

  // Copies `out.size()` bytes starting at byte `offset` into `out`.
  void read_bytes(std::span<std::byte> out, uint64_t offset = 0) const;
  std::vector<std::byte> read_bytes() const;
  void write_bytes(std::span<const std::byte> data, uint64_t offset = 0);
  // Sets every 32-bit word to `pattern`.
  void fill(uint32_t pattern);

  // The buffer's device address (Vulkan's buffer device address), for
  // foreign SPIR-V that takes buffers as pointers (GL_EXT_buffer_reference,
  // PhysicalStorageBuffer): pass it as the pointer's push-constant member,
  // `Argument::bytes(buffer.device_address())`. The address stays valid
  // while the buffer lives; a kernel argument given as an address does not
  // keep the buffer alive, and auto barriers do not see what the kernel
  // does through it (record barrier() between dependent launches). Throws
  // Unsupported on a device without device addresses (the cpu device) and
  // for a StagingBuffer.
  uint64_t device_address() const;

 private:
  friend class Device;
  BufferBase(std::shared_ptr<detail::DeviceImpl> device, std::shared_ptr<detail::BufferImpl> impl);

  friend struct detail::Access;
  std::shared_ptr<detail::DeviceImpl> device_;  // keeps the device open
  std::shared_ptr<detail::BufferImpl> impl_;
};

// Host memory for large transfers (Device::staging_buffer): the host writes
// and reads data() directly, and CommandBuffer::copy moves bytes between it
// and device buffers on the GPU. Device buffers may live in memory the host
// reads slowly (write-combined memory behind a resizable BAR on discrete
// GPUs); a staging buffer is host-cached memory outside the device where
// the device offers one, so filling inputs from many threads and checking
// results there runs at host memory speed. Not a kernel argument (a launch
// given one throws InvalidArgument). Move-only, as BufferBase.
class StagingBuffer : public BufferBase {
 public:
  // The buffer's host memory, size_bytes() bytes, valid while it lives. Do
  // not touch it while a submission that copies to or from it still runs
  // (read_bytes() and write_bytes() refuse then; data() cannot check).
  std::span<std::byte> data();

 private:
  friend class Device;
  explicit StagingBuffer(BufferBase&& base) : BufferBase(std::move(base)) {}
};

// A buffer of count() elements of T (trivially copyable).
template <class T>
class Buffer : public BufferBase {
  static_assert(std::is_trivially_copyable_v<T>, "Buffer<T> needs a trivially copyable T");

 public:
  size_t count() const { return size_t(size_bytes() / sizeof(T)); }

  // Writes values.size() elements starting at element `first`.
  void write(std::span<const T> values, size_t first = 0) {
    write_bytes(std::as_bytes(values), uint64_t(first) * sizeof(T));
  }
  void write(const std::vector<T>& values, size_t first = 0) {
    write(std::span<const T>(values), first);
  }
  // Every element.
  std::vector<T> read() const {
    std::vector<T> values(count());
    read(std::span<T>(values));
    return values;
  }
  // out.size() elements starting at element `first`.
  void read(std::span<T> out, size_t first = 0) const {
    read_bytes(std::as_writable_bytes(out), uint64_t(first) * sizeof(T));
  }

 private:
  friend class Device;
  explicit Buffer(BufferBase&& base) : BufferBase(std::move(base)) {}
};

}  // namespace wasmgpu
