// State shared by everything that emits code for one kernel: the module being
// built, common types, the module-scope variables of the kernel ABI, its
// specialization constants, the proofs about its accesses, the SPIR-V ids of
// compiled functions and the runtime helper functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "spirv/abi_variables.h"
#include "spirv/access_path.h"
#include "frontend/instance_state.h"
#include "spirv/kernel_types.h"
#include "spirv/module_builder.h"
#include "spirv/proof_state.h"
#include "spirv/spec_constants.h"
#include "frontend/shared_memory.h"
#include "frontend/stack_analysis.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

// The SPIR-V back end reads the front end's facts (src/frontend/); their
// names are used here unqualified.
using namespace frontend;

class RuntimeHelpers;

// Workgroup-shared memory: wasm addresses [lo, hi) (multiples of 4) live in
// the Workgroup array `variable` (workgroup_memory.h); lo == hi when none.
struct SharedMemory : frontend::SharedMemory {
  Id variable{};  // the Workgroup array (declare_shared_memory)
};

// Owns the kernel's common types, ABI variables, specialization constants
// and proof state, each a type of its own (kernel_types.h, abi_variables.h,
// spec_constants.h, proof_state.h); what is left here is what every part of
// the lowering reaches: the module, its layout and the lowering's parts.
struct KernelContext {
  KernelContext(const wasm::Module& module, ModuleBuilder& builder, const StackLayout& stack);

  const wasm::Module& module;
  ModuleBuilder& b;
  StackLayout stack;
  // The wasm function being lowered, for messages (UINT32_MAX outside one).
  uint32_t current_function = UINT32_MAX;

  KernelTypes types;
  AbiVariables abi;
  SpecConstants spec;
  ProofState proofs;

  // A PhysicalStorageBuffer pointer to `pointee` at device address `address` (u64).
  Id device_pointer(class FunctionBuilder& f, Id address, Id pointee);

  // Whether the shader keeps mutable/imported globals, the memory size and
  // the tables in the instance's InstanceState (instance_state.h); module-wide.
  bool instance_state = false;
  // A PhysicalStorageBuffer pointer to `type` at InstanceState + `offset` (u64).
  Id instance_pointer(class FunctionBuilder& f, uint32_t offset, Id type);
  // Where everything lives in the InstanceState (tables, segments, globals).
  InstanceLayout layout;
  // The functions table slots may hold (table.h); null when the module's
  // tables cannot be compiled (an imported table), and call_indirect and
  // table instructions are refused.
  const struct IndirectCallTargets* indirect_targets = nullptr;

  // The GPU programming model (intrinsics.h, workgroup_memory.h).
  SharedMemory shared;         // workgroup-shared variables
  bool uses_barriers = false;  // a reachable function calls wasmgpu.barrier
  class Intrinsics* intrinsics = nullptr;
  class Images* images = nullptr;  // the image imports (images.h)

  // Bytes of an invocation's stack slot (abi/launch_abi.h): the shadow stack
  // window (stack.slot_size), then the call stack of each recursive component
  // (recursive_component.h), which grows it while functions are lowered. The
  // address translation helper, emitted after every function, reads it final.
  uint32_t stack_slot_size = 0;

  // SPIR-V function ids of compiled wasm functions (by function index).
  std::unordered_map<uint32_t, Id> function_ids;

  RuntimeHelpers* helpers = nullptr;
  // Float lowering of the exact float mode (float_exact.h); null in fast mode.
  class ExactFloat* exact_float = nullptr;
  bool subgroup_vote = false;         // CompileOptions::subgroup_vote
  bool loop_exit_breaks = true;       // CompileOptions::loop_exit_breaks
  bool f64_subnormals_native = true;  // CompileOptions::f64_subnormals_native
  bool trap_sites = false;            // CompileOptions::trap_sites (abi.trap_site_var)
  bool uses_memory = false;           // any linear memory access (needs 8-bit storage)
  // How many access sites took each path (access_path.h).
  AccessPathCounts access_paths;
};

}  // namespace wasmgpu::spirv
