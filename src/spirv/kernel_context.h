// State shared by everything that emits code for one kernel: the module being
// built, common types, the module-scope variables of the kernel ABI, the SPIR-V
// ids of compiled functions and the runtime helper functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "abi/launch_proof.h"
#include "spirv/access_path.h"
#include "spirv/instance_state.h"
#include "spirv/module_builder.h"
#include "spirv/stack_analysis.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

class RuntimeHelpers;

// Workgroup-shared memory: wasm addresses [lo, hi) (multiples of 4) live in
// the Workgroup array `variable` (workgroup_memory.h); lo == hi when none.
struct SharedMemory {
  uint32_t lo = 0, hi = 0;
  uint32_t variable = 0;
};

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
  uint32_t trap_kind_var = 0;        // u32: kind of this invocation's first trap
  uint32_t instance_state_var = 0;   // u64: device address of the InstanceState
  uint32_t memory_base_var = 0;      // u64: device address of the module memory
  // The PushConstant block (abi/launch_abi.h), declared by `main`: members
  // launch_block, base_index, count, memory_address, then the argument copy
  // as 4-byte words.
  uint32_t push_constants_var = 0;
  static constexpr uint32_t kPushMemoryAddressMember = 3;
  static constexpr uint32_t kPushHeaderMembers = 4;

  // Whether the shader keeps mutable/imported globals, the memory size and
  // the tables in the instance's InstanceState (instance_state.h); module-wide.
  bool instance_state = false;
  // A PhysicalStorageBuffer pointer to `type` at InstanceState + `offset` (u64).
  uint32_t instance_pointer(class FunctionBuilder& f, uint32_t offset, uint32_t type);
  // Where everything lives in the InstanceState (tables, segments, globals).
  InstanceLayout layout;
  // The functions table slots may hold (table.h); null when the module's
  // tables cannot be compiled (an imported table), and call_indirect and
  // table instructions are refused.
  const struct IndirectCallTargets* indirect_targets = nullptr;
  // The wasm function being lowered, for messages (UINT32_MAX outside one).
  uint32_t current_function = UINT32_MAX;
  std::string float64_function;  // first function that used f64

  // The GPU programming model (intrinsics.h, workgroup_memory.h).
  uint32_t base_index_var = 0;        // u32: this dispatch's first invocation index, set by main
  uint32_t invocation_count_var = 0;  // u32: invocations of the launch, set by main
  SharedMemory shared;                // workgroup-shared variables
  bool uses_barriers = false;         // a reachable function calls wasmgpu.barrier
  class Intrinsics* intrinsics = nullptr;
  class Images* images = nullptr;  // the image imports (images.h)
  // An Input variable for a built-in (one per built-in), and the workgroup
  // size as a composite of specialization constants 0, 1, 2.
  uint32_t builtin_input(spv::BuiltIn builtin, uint32_t type);
  uint32_t workgroup_size_constant();
  uint32_t t_uvec3() { return b.vector_type(t_u32, 3); }
  std::map<uint32_t, uint32_t> builtin_vars;
  uint32_t workgroup_size_id = 0;
  uint32_t workgroup_size_components[3] = {};
  // A bool specialization constant: the workgroup has at most `invocations`
  // invocations. True for every launch the proofs below were made for, so a
  // driver folds the run-time checks they make redundant away.
  uint32_t workgroup_at_most(uint32_t invocations);
  std::map<uint32_t, uint32_t> workgroup_at_most_ids;

  // Accesses whose addresses' ranges (pointer_provenance.h) lie in the shared
  // range while a workgroup has at most `invocations` invocations, by the
  // effective address's id: [ea + lo, ea + hi) is proven inside. The shared
  // range checks (workgroup_memory.h) hold whenever workgroup_at_most does.
  struct SharedProof {
    int64_t lo = 0, hi = 0;
    uint32_t invocations = 0;
  };
  std::unordered_map<uint32_t, SharedProof> shared_proofs;

  // Bytes of an invocation's stack slot (abi/launch_abi.h): the shadow stack
  // window (stack.slot_size), then the call stack of each recursive component
  // (recursive_component.h), which grows it while functions are lowered. The
  // address translation helper, emitted after every function, reads it final.
  uint32_t stack_slot_size = 0;

  // Private variables holding wasm globals (by global index).
  std::map<uint32_t, uint32_t> global_vars;
  // SPIR-V function ids of compiled wasm functions (by function index).
  std::unordered_map<uint32_t, uint32_t> function_ids;

  RuntimeHelpers* helpers = nullptr;
  // Float lowering of the exact float mode (float_exact.h); null in fast mode.
  class ExactFloat* exact_float = nullptr;
  bool subgroup_vote = false;  // CompileOptions::subgroup_vote
  bool loop_exit_breaks = true;  // CompileOptions::loop_exit_breaks
  bool f64_subnormals_native = true;  // CompileOptions::f64_subnormals_native
  bool uses_float64 = false;
  bool uses_memory = false;  // any linear memory access (needs 8-bit storage)
  // What access_path() may assume, and how many access sites took each path.
  AddressFacts address_facts;
  AccessPathCounts access_paths;

  // Pointer parameters (abi/launch_abi.h, ParamRegion): the kernel function
  // whose parameters hold the launch's arguments (UINT32_MAX in call
  // shaders, whose arguments differ per invocation), and per wasm parameter
  // index the Private u64 variables `main` fills from the LaunchBlock, made
  // when an access first asks for them.
  struct ParamRegion {
    uint32_t wasm_base = 0, size = 0, device_address = 0;
  };
  uint32_t kernel_function = UINT32_MAX;
  std::map<uint32_t, ParamRegion> param_regions;

  // Accesses proven at launch (abi/launch_proof.h): the kernel function's
  // recorded accesses, and whether the access being lowered is one of them
  // (FunctionLowering sets it around the call of the memory helpers), so
  // that its range check also passes where the parameter's bit of
  // abi::kSpecProvenParams is set.
  abi::LaunchProof launch_proof;
  bool launch_proven_access = false;
  // The bool specialization constant "parameter p proven", made on first use.
  uint32_t param_proven(uint32_t param);
  // Specialization constant abi::kSpecIndexDims, made on first use.
  uint32_t index_dims();
  uint32_t index_dims_id = 0;
  uint32_t proven_params_id = 0;
  std::map<uint32_t, uint32_t> param_proven_ids;

  // How the lowering built each run-time effective address (u64 id): the i32
  // operand plus the constant memarg offset, so that a check which provably
  // cannot be fooled by 32-bit wrap-around can be done in 32 bits.
  struct AddressParts {
    uint32_t operand = 0;  // u32 id
    uint32_t offset = 0;
  };
  std::unordered_map<uint32_t, AddressParts> address_parts;
  const ParamRegion& param_region(uint32_t param);
};

}  // namespace wasmgpu::spirv
