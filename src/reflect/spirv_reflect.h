// Reflection of foreign SPIR-V (GLSL, HLSL, Slang, rust-gpu) into
// wasmgpu::KernelInterface, one per compute entry point, with SPIRV-Cross's C
// API. The interface is what a launch binds: descriptor bindings by (set,
// binding), then push-constant members by offset.
#pragma once

#include "interface/kernel_interface.h"

#include <cstdint>
#include <span>
#include <vector>

#include "support/result.h"

namespace wasmgpu::reflect {

struct SpirvReflection {
  // One per GLCompute entry point, in the module's order.
  std::vector<KernelInterface> kernels;
  // Every struct type the parameters' layouts name as a member type (nested
  // structs), by name, so that bindgen can lay them out too. Parameter layouts
  // themselves are in Param::layout.
  std::vector<StructLayout> nested_structs;
};

// Reflects every compute entry point of `words`. Errors: not SPIR-V, no
// compute entry point, or a binding this reflection cannot describe (arrays of
// descriptors, acceleration structures, ...), naming the variable.
//
// Parameters are the resources the entry point statically uses (SPIRV-Cross's
// active variables), so a module holding several entry points gives each the
// bindings it touches. Names: the variable's OpName, else its block type's,
// else "set<S>_binding<B>"; push-constant members by member name, else
// "push<offset>". shared_memory_bytes counts every Workgroup variable of the
// module (an upper bound for modules with several entry points).
Result<SpirvReflection> reflect_spirv(std::span<const uint32_t> words);

// True when `bytes` start with the SPIR-V magic number (either byte order).
bool is_spirv(std::span<const uint8_t> bytes);

// SPIR-V words from a file's bytes (swapping big-endian modules), or an error
// when the size is no multiple of 4 or the magic number is missing.
Result<std::vector<uint32_t>> spirv_words(std::span<const uint8_t> bytes);

}  // namespace wasmgpu::reflect
