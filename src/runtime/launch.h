// Kernel arguments and launch options.
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/buffer.h"
#include "runtime/image.h"

namespace wasmgpu::runtime {

// One kernel argument after the invocation index: an i32/i64/f32/f64 scalar,
// or a Buffer, passed as its wasm address into an i32 (pointer) parameter, or
// an Image or Sampler, passed as its handle into an i32 parameter. Integers of
// 4 bytes or less are i32, 8-byte integers i64. An Arg refers to a Buffer,
// Image or Sampler without owning it.
class Arg {
 public:
  enum class Kind { I32, I64, F32, F64, Buffer, Image, Sampler };

  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Arg(T value)
      : kind_(sizeof(T) <= 4 ? Kind::I32 : Kind::I64),
        bits_(sizeof(T) <= 4 ? uint64_t(uint32_t(value)) : uint64_t(value)) {}
  Arg(float value) : kind_(Kind::F32) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    bits_ = bits;
  }
  Arg(double value) : kind_(Kind::F64) { std::memcpy(&bits_, &value, 8); }
  Arg(const Buffer& buffer) : kind_(Kind::Buffer), buffer_(&buffer) {}
  Arg(const Image& image) : kind_(Kind::Image), image_(&image) {}
  Arg(const Sampler& sampler) : kind_(Kind::Sampler), sampler_(&sampler) {}

  Kind kind() const { return kind_; }
  // The value's bits (i32/f32 in the low 32 bits); unused for buffers.
  uint64_t bits() const { return bits_; }
  const Buffer* buffer() const { return buffer_; }
  const Image* image() const { return image_; }
  const Sampler* sampler() const { return sampler_; }

 private:
  Kind kind_;
  uint64_t bits_ = 0;
  const Buffer* buffer_ = nullptr;
  const Image* image_ = nullptr;
  const Sampler* sampler_ = nullptr;
};

// "i32", "i64", "f32", "f64", "buffer", "image", "sampler"
const char* to_string(Arg::Kind kind);

// The timeout launches use unless told otherwise: WASMGPU_LAUNCH_TIMEOUT
// (seconds) when set to a positive number, else 60 s. It bounds the kernel's
// execution only: where a driver compiles a pipeline at its first dispatch
// (lavapipe), a warm-up compiles it before, under its own bound
// (WASMGPU_COMPILE_TIMEOUT, pipeline_warmup.h).
std::chrono::nanoseconds default_launch_timeout();

struct LaunchOptions {
  // How long launch() waits for the kernel to run before reporting a timeout
  // ("the kernel ran longer than N s"); compiling its pipeline is not counted.
  std::chrono::nanoseconds timeout = default_launch_timeout();
  // Fail the launch when an invocation traps. Vectorised calls turn this off:
  // their result records carry each call's trap.
  bool fail_on_trap = true;
};

// Workgroup size used when a launch asks for 0: 64, or less when the device
// allows less.
inline constexpr uint32_t kDefaultWorkgroupSize = 64;

// Per-invocation stacks of one dispatch stay within this many bytes; larger
// launches are split into several dispatches that reuse the stacks.
inline constexpr uint64_t kStackBudgetBytes = 64ull << 20;

}  // namespace wasmgpu::runtime
