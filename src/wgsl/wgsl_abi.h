// The contract between WGSL the back end writes (wgsl/wgsl_compiler.h) and
// whatever launches it (js/run_wgsl.mjs today): the bindings, the launch
// words and the header line that describes the kernel. docs/webgpu.md
// explains the mapping; this header is the one place that fixes the numbers.
//
// Every binding is in group 0:
//   0  var<uniform> launch: array<vec4<u32>, kLaunchVectors>   the launch words below
//   1  var<storage, read_write> traps: array<atomic<u32>>      abi::TrapRecord's layout
//   2  var<storage, read_write> mem: array<atomic<u32>>        the module memory
//   3+ var<storage, read_write> bufK: array<atomic<u32>>       one per data buffer the launch maps
//   3 + buffers  var<storage, read_write> stk: array<u32>      the shadow stack, where the kernel has
//                one: stack_slot_bytes per invocation of a dispatch, the slot
//                of an invocation its index minus the dispatch's base index
//
// Launch words (u32 index into `launch`, read as launch[i / 4][i % 4]):
//   0 base_index   invocation index of the dispatch's first invocation
//   1 count        invocations of the launch; indices >= count return at once
//   2 region_count entries of the region table
//   3 zero         always 0: the shader cannot see that, so a product xor-ed
//                  with it is not fused into a following add (docs/webgpu.md)
//   4.. args       two words per argument after the invocation index (the
//                  value, or for i32/f32 the value and 0)
//   then regions   four words per mapped buffer, sorted by wasm_base:
//                  wasm_base, size (bytes), buffer binding (0 = bindings[3]), 0
// Wasm addresses are the Vulkan runtime's (docs/memory-model.md): the module
// memory at [0, memory bytes), buffers from abi::kBufferAddressBase up, so
// pointer values agree between the two back ends.
#pragma once

#include <cstdint>

namespace wasmgpu::wgsl {

inline constexpr uint32_t kLaunchBinding = 0;
inline constexpr uint32_t kTrapBinding = 1;
inline constexpr uint32_t kMemoryBinding = 2;
inline constexpr uint32_t kFirstBufferBinding = 3;

inline constexpr uint32_t kLaunchVectors = 64;  // 256 words, 1 KiB of uniform data
inline constexpr uint32_t kLaunchWords = 4 * kLaunchVectors;
inline constexpr uint32_t kLaunchBaseIndex = 0;
inline constexpr uint32_t kLaunchCount = 1;
inline constexpr uint32_t kLaunchRegionCount = 2;
inline constexpr uint32_t kLaunchZero = 3;
inline constexpr uint32_t kLaunchArgs = 4;
inline constexpr uint32_t kLaunchArgWords = 2;
inline constexpr uint32_t kRegionWords = 4;

// WebGPU's default maxStorageBuffersPerShaderStage: a kernel gets as many
// buffer bindings as it has i32 parameters, within what is left of it.
inline constexpr uint32_t kDefaultMaxStorageBuffers = 8;
inline constexpr uint32_t kFixedStorageBuffers = 2;  // traps, module memory

// The entry point and the override constants that set the workgroup size
// (runtime_helpers.cpp and wgsl_compiler.cpp write them), for launchers that
// read them from the kernel bundle (cli/wgsl_bundle.h).
inline constexpr const char* kEntryPoint = "main";
inline constexpr const char* kWorkgroupSizeOverrides[3] = {"wg_x", "wg_y", "wg_z"};

// The first line of every WGSL file the back end writes starts with this,
// followed by one line of JSON (WgslKernel::abi_json).
inline constexpr const char* kAbiHeaderPrefix = "// wasmgpu-wgsl-abi ";

}  // namespace wasmgpu::wgsl
