// The WGSL back end's driver: one exported kernel of a validated module as
// a WGSL compute shader for WebGPU, written from the front end's facts
// (frontend/front_end_facts.h) and the bindings of wgsl/wgsl_abi.h.
// docs/webgpu.md describes the mapping and what is refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/result.h"
#include "wasm/module.h"
#include "wgsl/wgsl_abi.h"

namespace wasmgpu::wgsl {

struct WgslOptions {
  // The adapter's maxStorageBuffersPerShaderStage: the kernel gets one buffer
  // binding per i32 parameter within what the fixed bindings leave of it.
  uint32_t max_storage_buffers = kDefaultMaxStorageBuffers;
};

struct WgslKernel {
  // The shader: its first line is kAbiHeaderPrefix + abi_json.
  std::string source;
  // {"kernel", "params": ["i32"|"f32", ...] after the index, "memory_bytes",
  //  "buffer_bindings", "stack_slot_bytes", "stack_binding" (null without a
  //  shadow stack), "shared_bytes", "barriers" (bool), "features" (the
  //  WebGPU features the device needs: "subgroups"),
  //  "data": [{"offset", "hex"}, ...]}: what a launcher
  //  needs besides the WGSL (the module memory's initial contents included).
  std::string abi_json;
  uint32_t buffer_bindings = 0;
  // The shadow stack: bytes of one invocation's slot (0: none) and its
  // binding, after the buffers. A launch binds at least stack_slot_bytes
  // times the invocations of its largest dispatch there; an invocation's slot
  // is its index within its dispatch (docs/webgpu.md, "Memory").
  uint32_t stack_slot_bytes = 0;
  uint32_t stack_binding = 0;
  // Bytes of workgroup-shared memory (`var<workgroup> shm`), 0 without.
  uint32_t shared_bytes = 0;
  // The kernel reaches a barrier: a 1-D launch must cover whole workgroups.
  bool barriers = false;
  // It uses subgroup operations: the device needs WebGPU's "subgroups".
  bool subgroups = false;
};

// Refuses, naming the function and the reason, whatever the back end does
// not write yet: v128, 64-bit atomics, barriers it cannot prove uniform,
// images, tables, memory.grow, bulk memory, recursion and mutable globals
// other than the stack pointer.
Result<WgslKernel> compile_kernel(const wasm::Module& module, std::string_view export_name,
                                  const WgslOptions& options = {});

}  // namespace wasmgpu::wgsl
