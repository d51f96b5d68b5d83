// State shared by everything that emits code for one kernel: the module being
// built, common types, the module-scope variables of the kernel ABI, the SPIR-V
// ids of compiled functions and the runtime helper functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "spirv/module_builder.h"
#include "spirv/stack_analysis.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

class RuntimeHelpers;

struct KernelContext {
  KernelContext(const wasm::Module& module, ModuleBuilder& builder, const StackLayout& stack);

  const wasm::Module& module;
  ModuleBuilder& b;
  StackLayout stack;

  // Types.
  uint32_t t_void, t_bool, t_u32, t_u64;
  uint32_t value_type(wasm::ValType type);    // i32->u32, i64->u64, f32, f64
  uint32_t result_type(const std::vector<wasm::ValType>& results);  // void, scalar or struct
  uint32_t t_u8();
  uint32_t t_f32();
  uint32_t t_f64();

  // A PhysicalStorageBuffer pointer to `pointee` at device address `address` (u64).
  uint32_t device_pointer(class FunctionBuilder& f, uint32_t address, uint32_t pointee);

  // Private (per-invocation) variables of the kernel ABI, set by `main`.
  uint32_t trapped_var = 0;          // bool: this invocation has trapped
  uint32_t invocation_index_var = 0; // u32: launch-wide invocation index, for trap records
  uint32_t stack_slot_var = 0;       // u32: index of this invocation's stack slot
  uint32_t launch_block_var = 0;     // u64: device address of the LaunchBlock

  // Private variables holding wasm globals (by global index).
  std::map<uint32_t, uint32_t> global_vars;
  // SPIR-V function ids of compiled wasm functions (by function index).
  std::map<uint32_t, uint32_t> function_ids;

  RuntimeHelpers* helpers = nullptr;
  bool uses_float64 = false;
  bool uses_memory = false;  // any linear memory access (needs 8-bit storage)
};

}  // namespace wasmgpu::spirv
