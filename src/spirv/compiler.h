// Compiles one exported wasm function (a kernel) to a Vulkan compute shader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

struct CompileOptions {
  // Run SPIRV-Tools' validator on the output and fail on any finding.
  bool validate = true;
};

// What the runtime needs to know to launch a compiled kernel. The shader's
// interface is fixed by abi/launch_abi.h; this records the module-specific part.
struct KernelInfo {
  std::string export_name;
  uint32_t function_index = 0;
  // Kernel parameters after the invocation index, in order.
  std::vector<wasm::ValType> params;
  // Linear memory the module itself needs (initial pages * 64 KiB).
  uint64_t memory_bytes = 0;
  // Shadow stack. Addresses [stack_window_lo, stack_hi) are private to each
  // invocation and live in a slot of stack_slot_size bytes; zero when the
  // kernel never touches the stack.
  uint32_t stack_hi = 0;
  uint32_t stack_window_lo = 0;
  uint32_t stack_slot_size = 0;
  // Device features the shader relies on.
  bool uses_float64 = false;
  bool uses_int8_storage = false;
  // Functions compiled (reachable from the kernel), for reporting.
  uint32_t compiled_functions = 0;
};

struct CompiledKernel {
  std::vector<uint32_t> words;  // SPIR-V 1.5 (Vulkan 1.2 environment), entry point "main"
  KernelInfo info;
};

// Why an export can or cannot be launched as a kernel: empty when it can.
// A kernel is an exported function whose first parameter is the i32 invocation
// index, whose other parameters are i32/i64/f32/f64 and which returns nothing.
std::string kernel_signature_problem(const wasm::Module& module, std::string_view export_name);

// Compiles the exported function `export_name` and every function reachable
// from it. Fails with a message naming the function for what cannot run on a
// GPU yet (recursion, v128, imports, ...).
Result<CompiledKernel> compile_kernel(const wasm::Module& module, std::string_view export_name,
                                      const CompileOptions& options = {});

// SPIR-V assembly text of a module (SPIRV-Tools' disassembler), for `--emit spvasm`.
Result<std::string> disassemble(const std::vector<uint32_t>& words);

// Runs SPIRV-Tools' validator for the Vulkan 1.2 environment.
Status validate(const std::vector<uint32_t>& words);

}  // namespace wasmgpu::spirv
