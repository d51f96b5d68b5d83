// WGSL's atomics work on atomic<u32> words of one binding or workgroup
// array each, through a pointer WGSL cannot pass between functions or pick
// at run time: so each atomic operation of the kernels is one helper that
// resolves the wasm address (runtime_helpers.h, resolve), checks its
// natural alignment (a misaligned atomic traps, out of bounds memory access,
// as in the Vulkan back end) and switches over the binding slots. What WGSL
// has no instruction for (signed min/max on u32 words, f32 add, 8- and
// 16-bit accesses, a strong compare-exchange) is a loop of
// atomicCompareExchangeWeak. A shadow-stack word, only its own
// invocation's, is a plain read-modify-write. docs/webgpu.md, "Atomics".
#pragma once

#include <compare>
#include <cstdint>
#include <set>
#include <string>

#include "wgsl/runtime_helpers.h"

namespace wasmgpu::wgsl {

enum class AtomicOp : uint8_t {
  Load,
  Store,
  Add,
  Sub,
  And,
  Or,
  Xor,
  Exchange,
  CompareExchange,  // (expected, replacement), wasm's order
  MinS,
  MaxS,
  MinU,
  MaxU,
  AddF32,  // on the bits: the helper takes and returns u32
  Notify,  // no invocation waits: 0 after the address's checks
};

struct AtomicHelper {
  AtomicOp op = AtomicOp::Add;
  uint8_t width = 4;  // bytes: 1, 2 or 4
  auto operator<=>(const AtomicHelper&) const = default;
};

// "atomic_add_4": fn (addr: u32, offset: u32[, v: u32[, replacement: u32]]) [-> u32],
// the old value (zero-extended for 1 and 2 bytes); 0 once the invocation
// has trapped or when the access traps.
std::string atomic_helper_name(AtomicHelper helper);

// The helpers in `used`, after runtime_prelude(shape).
std::string atomic_helpers(const PreludeShape& shape, const std::set<AtomicHelper>& used);

}  // namespace wasmgpu::wgsl
