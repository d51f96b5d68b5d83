// Kernel parameter metadata: the custom section "wasmgpu.kernels" that
// include/wasmgpu.h's WASMGPU_DEFINE_KERNEL writes, with each kernel's
// parameter names, C types and pointee types. Tools read it (inspect, binding
// generators); a kernel without it still runs.
//
// Encoding (version 1), one record per kernel, records concatenated (wasm-ld
// appends the records of every object file):
//   u8 version (1), kernel export name NUL-terminated, u8 parameter count,
//   per parameter: u8 kind (0 integer, 1 floating point, 2 pointer,
//   3 pointer to const, 4 image handle, 5 sampler handle; kinds 4 and 5 came
//   later, within version 1: records without them read as before), u32 size, u32 alignment (little-endian; of the
//   pointee for pointers, else of the value), then three NUL-terminated
//   strings: name, C type, pointee type (empty for values).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::wasm {

inline constexpr std::string_view kKernelMetadataSection = "wasmgpu.kernels";
inline constexpr uint8_t kKernelMetadataVersion = 1;

struct KernelParam {
  // Image and Sampler: an int handle (i32) the host fills from an Image or
  // Sampler argument (include/wasmgpu.h, "Images").
  enum class Kind : uint8_t { Integer = 0, Float = 1, Pointer = 2, ConstPointer = 3, Image = 4, Sampler = 5 };
  Kind kind = Kind::Integer;
  uint32_t size = 0;       // bytes: of the pointee for pointers, else of the value
  uint32_t alignment = 0;  // likewise
  std::string name;        // "x"
  std::string type;        // the C spelling: "const float *"
  std::string pointee;     // "float"; empty for values

  bool is_pointer() const { return kind == Kind::Pointer || kind == Kind::ConstPointer; }
  bool is_handle() const { return kind == Kind::Image || kind == Kind::Sampler; }
  friend bool operator==(const KernelParam&, const KernelParam&) = default;
};

struct KernelMetadata {
  std::string kernel;               // the export name
  std::vector<KernelParam> params;  // every wasm parameter, the invocation index first
  friend bool operator==(const KernelMetadata&, const KernelMetadata&) = default;
};

// The records in a "wasmgpu.kernels" section's contents. Errors name the
// offset within the contents and what is wrong (truncation, an unknown
// version or kind, a size that is no power-of-two alignment ...).
Result<std::vector<KernelMetadata>> parse_kernel_metadata(std::span<const uint8_t> contents);

// Every record of `module`'s "wasmgpu.kernels" sections (none when it has
// none), each checked against the wasm signature of the export it names:
// one record per kernel, the kernel exported as a function, and each
// parameter's kind and size matching the wasm parameter (integers of up to 4
// bytes, pointers and 4-byte handles are i32, 8-byte integers i64, floats
// f32 or f64).
// Errors name the kernel and the parameter.
Result<std::vector<KernelMetadata>> read_kernel_metadata(const Module& module);

// A parameter as inspect and errors show it: "float a", or for pointers
// "const float * x (float: 4 bytes, align 4)".
std::string describe(const KernelParam& param);

}  // namespace wasmgpu::wasm
