// What the lowering of one kernel knows about its memory accesses beyond
// their code: the address facts access_path() may assume, the proofs made
// for shared-memory and launch-time checks, and how effective addresses
// were built.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "abi/launch_proof.h"
#include "spirv/access_path.h"

namespace wasmgpu::spirv {

struct ProofState {
  // What access_path() may assume.
  AddressFacts address_facts;

  // Accesses whose addresses' ranges (pointer_provenance.h) lie in the shared
  // range while a workgroup has at most `invocations` invocations, by the
  // effective address's id: [ea + lo, ea + hi) is proven inside. The shared
  // range checks (workgroup_memory.h) hold whenever
  // SpecConstants::workgroup_at_most does.
  struct SharedProof {
    int64_t lo = 0, hi = 0;
    uint32_t invocations = 0;
  };
  std::unordered_map<Id, SharedProof> shared_proofs;

  // Accesses proven at launch (abi/launch_proof.h): the kernel function's
  // recorded accesses. The memory helpers are told for each access whether
  // it is one of them (RuntimeHelpers::load's `proven_at_launch`).
  abi::LaunchProof launch_proof;

  // How the lowering built each run-time effective address (u64 id): the i32
  // operand plus the constant memarg offset, so that a check which provably
  // cannot be fooled by 32-bit wrap-around can be done in 32 bits.
  struct AddressParts {
    Id operand;  // u32
    uint32_t offset = 0;
  };
  std::unordered_map<Id, AddressParts> address_parts;
};

}  // namespace wasmgpu::spirv
