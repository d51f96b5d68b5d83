// Provenance and alignment of the addresses a function's memory accesses use
// (docs/compiler.md, "Pointer parameters"). A small abstract interpretation
// over the wasm code, before lowering: every integer value is described as
// `base + rest`, where base is nothing (an absolute number), the value a
// parameter had on entry, or a stack pointer value, and where the low bits
// of `rest` may be known (rest ≡ residue mod 2^known_bits); an absolute
// number's range of values may be known too (value_range.h: from constants,
// bytes loaded, workgroup indices and counted loops, loop_induction.h). Locals are
// followed through local.get/set/tee, block results and loops (iterated to a
// fixed point, widened after a few rounds); loads, calls and everything else
// give values of unknown base.
//
// The facts are sound for every execution: the low known_bits of
// (address - base) are residue, whatever path led there, modulo 2^32 as wasm's
// i32 arithmetic wraps; an absolute value lies in its range. Which *region*
// an address falls in is not claimed: the fast paths that use these facts
// check that at run time, unless the range proves it (a shared access
// proven inside the shared range, under the workgroup-size assumption).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "frontend/value_range.h"
#include "wasm/module.h"
#include "wasm/operand_flow.h"

namespace wasmgpu::frontend {

struct PointerFact {
  enum class Base : uint8_t {
    Absolute,  // the value itself (constants, indices)
    Param,     // the value parameter `param` had on entry to the function, plus rest
    Stack,     // a value of the shadow stack pointer, plus rest
    Unknown,   // anything else; known_bits is 0
  };
  Base base = Base::Unknown;
  uint32_t param = 0;
  uint8_t known_bits = 0;  // 0..32
  uint32_t residue = 0;    // rest mod 2^known_bits
  // Base::Absolute: the values the number may take (full when unknown).
  ValueRange range;

  // The largest power of two, at most `limit`, that divides rest + offset
  // (1 when nothing is known).
  uint32_t alignment(uint64_t offset, uint32_t limit = 16) const;
  bool operator==(const PointerFact&) const = default;
};

struct ProvenanceOptions {
  // Global index of __stack_pointer: global.get of it gives Base::Stack.
  std::optional<uint32_t> stack_pointer;
  // Every value the stack pointer ever holds is a multiple of 16, so that a
  // Stack base contributes nothing to the low 4 bits.
  bool stack_pointer_aligned = false;
  // Parameters (by index) known to be numbers, not addresses: a kernel's
  // invocation index.
  std::vector<bool> number_params;
  // Ranges assume a workgroup of at most this many invocations (0: nothing
  // assumed): wasmgpu_local_index() and wasmgpu_local_id(d) are below it,
  // wasmgpu_workgroup_size(d) at most it. The intrinsics' import indices
  // are found in the module (module "wasmgpu").
  uint32_t max_workgroup_invocations = 0;
  // Whether to work out ranges at all (they cost compile time, and only
  // shared-memory proofs use them); every range is full when not.
  bool ranges = false;
};

// For each instruction of function `function_index` (a defined function of a
// validated module), by index in its body: the fact about the address operand
// of a memory access (loads, stores, threads-proposal atomics, and calls of
// the wasmgpu_atomic_* intrinsics), and Base::Unknown for every other
// instruction and for dead code.
std::vector<PointerFact> analyse_pointer_provenance(const wasm::Module& module, uint32_t function_index,
                                                    const ProvenanceOptions& options = {});
// The same, reading the function's operand flow (wasm/operand_flow.h) built once by the caller.
std::vector<PointerFact> analyse_pointer_provenance(const wasm::Module& module, uint32_t function_index,
                                                    const wasm::OperandFlow& flow, const ProvenanceOptions& options);

// Whether every global.set of the stack pointer in `functions` stores a value
// that is a multiple of 16, given that the stack pointer always held one
// before (an induction: then it always does, as its initial value is).
bool stack_pointer_stays_aligned(const wasm::Module& module, const std::vector<uint32_t>& functions,
                                 uint32_t stack_pointer, uint32_t initial_value);

}  // namespace wasmgpu::frontend
