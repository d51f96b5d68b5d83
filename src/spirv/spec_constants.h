// The specialization constants of a kernel (abi/launch_abi.h), each made on
// first use: the workgroup size, the launch's index dimensions and the bits
// that say which pointer parameters the launch proved.
#pragma once

#include <cstdint>
#include <map>

#include "spirv/kernel_types.h"
#include "spirv/module_builder.h"

namespace wasmgpu::spirv {

class SpecConstants {
 public:
  SpecConstants(ModuleBuilder& builder, const KernelTypes& types) : b_(builder), types_(types) {}

  // The workgroup size as a composite of specialization constants 0, 1, 2.
  Id workgroup_size();
  // A bool: the workgroup has at most `invocations` invocations. True for
  // every launch the shared-range proofs (ProofState::shared_proofs) were
  // made for, so a driver folds the run-time checks they make redundant away.
  Id workgroup_at_most(uint32_t invocations);
  // A bool: pointer parameter `param` is proven at launch (its bit of abi::kSpecProvenParams).
  Id param_proven(uint32_t param);
  // abi::kSpecIndexDims.
  Id index_dims();

 private:
  ModuleBuilder& b_;
  const KernelTypes& types_;
  Id workgroup_size_id_;
  Id workgroup_size_components_[3] = {};
  std::map<uint32_t, Id> workgroup_at_most_ids_;
  Id index_dims_id_;
  Id proven_params_id_;
  std::map<uint32_t, Id> param_proven_ids_;
};

}  // namespace wasmgpu::spirv
