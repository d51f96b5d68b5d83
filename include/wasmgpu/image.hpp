// Images and samplers. Wasm kernels reach them through integer handles (the
// wasmgpu image imports of wasmgpu.h): passing an Image or Sampler as an
// argument passes its handle. SPIR-V kernels bind them as storage images,
// sampled images and samplers.
//
//   wasmgpu::Image src = device.image_2d(640, 480, wasmgpu::ImageFormat::Rgba32F);
//   src.write(std::span<const float>(texels));          // the whole image
//   wasmgpu::Sampler smp = device.sampler(wasmgpu::Filter::Linear);
//   blur(wasmgpu::Launch(640 * 480), src, dst);          // handles in i32 parameters
//   std::vector<float> out = dst.read<float>();
//
// Texels are tightly packed, x fastest, then y, then z; write() and read()
// move the whole image and are synchronous, like Buffer's. An image is
// zero-filled when created. Ownership and lifetimes are those of buffers
// (buffer.hpp): move-only handles that keep their Device alive; destroying
// one that a submission still uses frees it when that submission finishes,
// and kernels launched later that get its old handle trap.
//
// Devices without descriptor indexing cannot create images or samplers:
// Exception(Unsupported), "device X lacks descriptor indexing needed for images".
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
struct ImageImpl;
struct SamplerImpl;
struct DeviceImpl;
struct Access;
}  // namespace detail

enum class ImageFormat {
  Rgba8,    // 8-bit unsigned normalised: kernels see floats in [0, 1]; 4 bytes a texel
  Rgba32F,  // 32-bit floats; 16 bytes a texel
  R32F,     // one 32-bit float; kernels see (r, 0, 0, 1); 4 bytes a texel
};
// Bytes per texel, and "rgba8", "rgba32f", "r32f".
uint32_t texel_bytes(ImageFormat format);
const char* to_string(ImageFormat format);

// How kernels use an image: load and store texels (Storage), sample it with
// a Sampler (Sampled), or both (Storage | Sampled).
enum class ImageUsage : uint32_t { Storage = 1, Sampled = 2 };
constexpr ImageUsage operator|(ImageUsage a, ImageUsage b) { return ImageUsage(uint32_t(a) | uint32_t(b)); }
constexpr bool has_usage(ImageUsage set, ImageUsage flag) { return (uint32_t(set) & uint32_t(flag)) != 0; }

// A 2D or 3D image with one mip level. Move-only; a moved-from image throws
// UseAfterMove from every call but valid().
class Image {
 public:
  Image(Image&&) noexcept;
  Image& operator=(Image&&) noexcept;
  ~Image();
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  bool valid() const { return impl_ != nullptr; }
  uint32_t width() const;
  uint32_t height() const;
  uint32_t depth() const;  // 1 for 2D images
  bool is_3d() const;
  ImageFormat format() const;
  ImageUsage usage() const;
  // width * height * depth * texel_bytes(format)
  uint64_t size_bytes() const;
  // The handle a kernel receives for this image (1 and up; 0 is never one).
  uint32_t handle() const;
  const DeviceInfo& device() const;

  // The whole image; data.size() must equal size_bytes() (BufferTooSmall otherwise).
  void write_bytes(std::span<const std::byte> data);
  std::vector<std::byte> read_bytes() const;

  // Typed texel data: float for rgba32f and r32f, uint8_t (or a 4-byte
  // struct) for rgba8. The byte count must equal size_bytes().
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void write(std::span<const T> values) {
    write_bytes(std::as_bytes(values));
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  void write(const std::vector<T>& values) {
    write(std::span<const T>(values));
  }
  template <class T>
    requires std::is_trivially_copyable_v<T>
  std::vector<T> read() const {
    std::vector<T> values(size_bytes() / sizeof(T));
    read_into(std::as_writable_bytes(std::span<T>(values)));
    return values;
  }

 private:
  friend class Device;
  friend struct detail::Access;
  Image(std::shared_ptr<detail::DeviceImpl> device, std::shared_ptr<detail::ImageImpl> impl);
  void read_into(std::span<std::byte> out) const;
  std::shared_ptr<detail::DeviceImpl> device_;
  std::shared_ptr<detail::ImageImpl> impl_;
};

enum class Filter { Nearest, Linear };
enum class AddressMode { ClampToEdge, Repeat };

// Normalised coordinates, the same filter for magnification and
// minification, the same address mode in every dimension. Move-only.
class Sampler {
 public:
  Sampler(Sampler&&) noexcept;
  Sampler& operator=(Sampler&&) noexcept;
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  bool valid() const { return impl_ != nullptr; }
  Filter filter() const;
  AddressMode address_mode() const;
  uint32_t handle() const;

 private:
  friend class Device;
  friend struct detail::Access;
  Sampler(std::shared_ptr<detail::DeviceImpl> device, std::shared_ptr<detail::SamplerImpl> impl);
  std::shared_ptr<detail::DeviceImpl> device_;
  std::shared_ptr<detail::SamplerImpl> impl_;
};

}  // namespace wasmgpu
