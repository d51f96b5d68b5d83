// The module-scope variables of the kernel ABI (abi/launch_abi.h): the
// Private variables `main` sets for each invocation, the PushConstant block,
// the built-in inputs, the wasm globals kept in Private variables and the
// regions of the kernel's pointer parameters.
#pragma once

#include <cstdint>
#include <map>

#include "spirv/kernel_types.h"
#include "spirv/module_builder.h"

namespace wasmgpu::spirv {

class AbiVariables {
 public:
  AbiVariables(ModuleBuilder& builder, const KernelTypes& types) : b_(builder), types_(types) {}

  // Private (per-invocation) variables, set by `main`.
  Id trapped_var;           // bool: this invocation has trapped
  Id invocation_index_var;  // u32: launch-wide invocation index, for trap records
  Id stack_slot_var;        // u32: index of this invocation's stack slot
  Id launch_block_var;      // u64: device address of the LaunchBlock
  Id trap_kind_var;         // u32: kind of this invocation's first trap
  Id instance_state_var;    // u64: device address of the InstanceState
  Id memory_base_var;       // u64: device address of the module memory
  Id base_index_var;        // u32: this dispatch's first invocation index
  Id invocation_count_var;  // u32: invocations of the launch
  Id trap_site_var;         // u32: module offset of the last instruction that may trap (trap_sites only)
  // What the first trap saw (trap_sites only): trap_site_var then, and the
  // trapping access's wasm address (abi::kNoTrapAddress for a trap of no
  // access) and byte count. A trapped invocation goes on running, so
  // trap_site_var itself moves on to the last instruction it passes.
  Id trapped_site_var;     // u32
  Id trapped_address_var;  // u64
  Id trapped_bytes_var;    // u32
  // The PushConstant block, declared by `main`: members launch_block,
  // base_index, count, memory_address, then the argument copy as 4-byte words.
  Id push_constants_var;
  static constexpr uint32_t kPushMemoryAddressMember = 3;
  static constexpr uint32_t kPushHeaderMembers = 4;

  // An Input variable for a built-in (one per built-in).
  Id builtin_input(spv::BuiltIn builtin, Id type);

  // Private variables holding wasm globals (by global index).
  std::map<uint32_t, Id> global_vars;

  // Pointer parameters (ParamRegion in abi/launch_abi.h): the kernel function
  // whose parameters hold the launch's arguments (UINT32_MAX in call
  // shaders, whose arguments differ per invocation), and per wasm parameter
  // index the Private u64 variables `main` fills from the LaunchBlock, made
  // when an access first asks for them.
  struct ParamRegion {
    Id wasm_base, size, device_address;
  };
  uint32_t kernel_function = UINT32_MAX;
  const ParamRegion& param_region(uint32_t param);
  const std::map<uint32_t, ParamRegion>& param_regions() const { return param_regions_; }

 private:
  ModuleBuilder& b_;
  const KernelTypes& types_;
  std::map<uint32_t, Id> builtin_vars_;
  std::map<uint32_t, ParamRegion> param_regions_;
};

}  // namespace wasmgpu::spirv
