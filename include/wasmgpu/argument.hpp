// Kernel arguments: scalars, buffers, images, samplers and raw bytes, bound
// to a kernel's parameters (KernelInterface::params) by position or by name.
//
//   saxpy(n, 2.0f, x, y);                                   // positional
//   saxpy(n, arg("a", 2.0f), arg("x", x), arg("y", y));     // named
//
// One launch is all-positional or all-named. The checks, at launch time,
// throw Exception(InvalidArgument) naming the kernel, the parameter (name and
// position), what it expects and what was given:
// - an integer argument fits an integer parameter at least as wide (int for
//   an i32 or i64 parameter, int64_t only for a 64-bit one); signedness is
//   free (the bits are passed);
// - float fits f32 and f64, double only f64 (no silent narrowing: 2.0 for a
//   float parameter is an error; write 2.0f);
// - a buffer fits a pointer parameter (wasm with kernel metadata), any i32
//   parameter of a wasm kernel without metadata, or a storage / uniform
//   buffer binding (SPIR-V); when the metadata gives the element size, a
//   typed Buffer<T> must have sizeof(T) equal to it;
// - bool is refused (its ABI size is the compiler's choice).
//
// An Argument refers to buffers, images and samplers without owning them;
// it is meant to be built in the launch call itself.
#pragma once

#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace wasmgpu {

class BufferBase;
class Image;    // wasmgpu/image.hpp
class Sampler;  // wasmgpu/image.hpp

class Argument {
 public:
  enum class Kind { Integer, Float, Buffer, Image, Sampler, Bytes };

  template <std::integral T>
    requires(!std::same_as<std::remove_cv_t<T>, bool>)
  Argument(T value)
      : kind_(Kind::Integer), size_(sizeof(T)), signed_(std::is_signed_v<T>) {
    bits_ = std::is_signed_v<T> ? uint64_t(int64_t(value)) : uint64_t(value);
  }
  Argument(bool) = delete;
  Argument(float value) : kind_(Kind::Float), size_(4) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    bits_ = bits;
  }
  Argument(double value) : kind_(Kind::Float), size_(8) { std::memcpy(&bits_, &value, 8); }
  Argument(const BufferBase& buffer) : kind_(Kind::Buffer), object_(&buffer) {}
  Argument(const Image& image) : kind_(Kind::Image), object_(&image) {}
  Argument(const Sampler& sampler) : kind_(Kind::Sampler), object_(&sampler) {}

  // The bytes of `value`, for push-constant structs and uniform values.
  template <class T>
    requires std::is_trivially_copyable_v<T>
  static Argument bytes(const T& value) {
    Argument argument;
    argument.kind_ = Kind::Bytes;
    argument.size_ = sizeof(T);
    argument.bytes_.resize(sizeof(T));
    std::memcpy(argument.bytes_.data(), &value, sizeof(T));
    return argument;
  }

  Kind kind() const { return kind_; }
  // Integer and Float: the value's bytes (4 or 8 for floats, 1..8 for
  // integers); Bytes: the bytes' count.
  uint32_t size() const { return size_; }
  bool is_signed() const { return signed_; }
  // Integer: the value sign- or zero-extended to 64 bits; Float: the bits of
  // the float (low 32 bits) or double.
  uint64_t bits() const { return bits_; }
  const std::vector<uint8_t>& byte_values() const { return bytes_; }
  const BufferBase* buffer() const { return kind_ == Kind::Buffer ? static_cast<const BufferBase*>(object_) : nullptr; }
  const Image* image() const { return kind_ == Kind::Image ? static_cast<const Image*>(object_) : nullptr; }
  const Sampler* sampler() const { return kind_ == Kind::Sampler ? static_cast<const Sampler*>(object_) : nullptr; }

  // The parameter name it binds to; empty for a positional argument.
  const std::string& name() const { return name_; }
  Argument&& named(std::string name) && {
    name_ = std::move(name);
    return std::move(*this);
  }

  // "i32 42", "f32 2.5", "a 64-byte buffer of 16 elements", ... for messages.
  std::string describe() const;

 private:
  Argument() = default;
  Kind kind_ = Kind::Integer;
  uint32_t size_ = 0;
  bool signed_ = false;
  uint64_t bits_ = 0;
  const void* object_ = nullptr;
  std::vector<uint8_t> bytes_;
  std::string name_;
};

// A named argument: arg("x", buffer), arg("a", 2.0f).
template <class T>
Argument arg(std::string name, T&& value) {
  return Argument(std::forward<T>(value)).named(std::move(name));
}

}  // namespace wasmgpu
