// The interface of a kernel, derived from the kernel itself: for wasm, from
// its signature and the wasmgpu.kernels metadata that WASMGPU_DEFINE_KERNEL
// records; for foreign SPIR-V (GLSL, HLSL, Slang, rust-gpu), from reflection.
// Launches bind arguments to these parameters by position or by name;
// `wasmgpu reflect` prints it as JSON and `wasmgpu bindgen` turns it into
// typed stubs.
//
// Defined here, below every stage that produces or consumes interfaces
// (reflect, device, runtime, bindgen), and re-exported unchanged by the
// public <wasmgpu/interface.hpp>: the public API depends on the stages, never
// the reverse. Self-contained (standard headers only), since it is installed
// beside the public headers (as wasmgpu/interface/kernel_interface.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wasmgpu {

enum class ScalarType { I32, U32, I64, U64, F32, F64 };

// "i32", "u32", "i64", "u64", "f32", "f64"
const char* to_string(ScalarType type);

enum class ParamKind {
  Scalar,         // a value: a wasm scalar parameter, or one scalar member of
                  // a SPIR-V push-constant block
  Bytes,          // a value given as raw bytes of `size` bytes: a non-scalar
                  // push-constant member (a struct, vector or array)
  Buffer,         // a storage buffer: a wasm pointer parameter or a SPIR-V
                  // StorageBuffer binding
  UniformBuffer,  // a SPIR-V Uniform binding: a Buffer, or a host value of
                  // `size` bytes the launch uploads
  StorageImage,   // an image the kernel reads and writes texels of
  SampledImage,   // an image the kernel samples (with a separate Sampler)
  Sampler,
  CombinedImageSampler,  // GLSL sampler2D: an Image with a Sampler
};

// "scalar", "bytes", "buffer", ...
const char* to_string(ParamKind kind);

// One member of a reflected struct (SPIR-V), at its byte offset.
struct StructMember {
  std::string name;
  std::string type;           // "float", "vec4", "mat4", "uint[4]", or a struct name
  uint32_t offset = 0;        // bytes from the start of the struct
  uint32_t size = 0;          // bytes, as laid out (arrays: whole array)
  uint32_t array_stride = 0;  // for arrays, else 0
};

struct StructLayout {
  std::string name;
  uint32_t size = 0;  // declared size; a runtime array counts as 0 elements
  std::vector<StructMember> members;
};

// One parameter a launch must bind.
struct Param {
  std::string name;  // wasm: the metadata name, or "arg1", "arg2"... without
                     // metadata; SPIR-V: the variable or member name
  ParamKind kind = ParamKind::Scalar;
  ScalarType scalar = ScalarType::I32;  // for Scalar
  // Buffers: the element's C type ("float", "struct particle") and size in
  // bytes (0 when unknown, e.g. plain wasm without metadata); Bytes and
  // UniformBuffer: the value's type name and size.
  std::string element_type;
  uint32_t element_size = 0;
  bool writable = true;  // false for const pointers, NonWritable buffers,
                         // read-only images
  // SPIR-V only: where the parameter lives.
  std::optional<uint32_t> set, binding;  // descriptor parameters
  std::optional<uint32_t> push_offset;   // push-constant members
  uint32_t size = 0;                     // Scalar/Bytes/UniformBuffer: bytes of the value
  // SPIR-V struct layout of the buffer or value, when it is a struct.
  std::optional<StructLayout> layout;
};

struct SpecConstant {
  uint32_t id = 0;
  std::string name;
  ScalarType type = ScalarType::U32;
  uint64_t default_bits = 0;  // the default value's bits (bool: 0/1 as U32)
};

enum class KernelSource { Wasm, Spirv };

struct KernelInterface {
  std::string name;  // the wasm export, or the SPIR-V entry point
  KernelSource source = KernelSource::Wasm;
  // In launch order. For wasm: every parameter after the invocation index.
  // For SPIR-V: descriptor bindings by (set, binding), then push-constant
  // members by offset.
  std::vector<Param> params;
  // Fixed by the shader (SPIR-V LocalSize, or LocalSizeId / WorkgroupSize of
  // plain constants), or nullopt when the launch picks it (wasm kernels, or
  // a dimension that is a specialization constant).
  std::optional<std::array<uint32_t, 3>> workgroup_size;
  // Spec constant ids of the workgroup size, when it is specialisable.
  std::array<std::optional<uint32_t>, 3> workgroup_size_spec_ids;
  // SPIR-V: the size the shader declares, specialisable dimensions at their
  // spec constants' defaults (what runs when the launch does not choose);
  // wasm: {0, 0, 0}.
  std::array<uint32_t, 3> workgroup_size_default{0, 0, 0};
  std::vector<SpecConstant> spec_constants;
  uint32_t push_constant_size = 0;  // SPIR-V: bytes of the push-constant block
  uint32_t shared_memory_bytes = 0;
};

}  // namespace wasmgpu
