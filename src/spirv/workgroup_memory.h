// Workgroup-shared memory declared in C: variables the kernel places in the
// data section ".wasmgpu_shared" (WASMGPU_SHARED in include/wasmgpu.h) keep
// their wasm addresses, but every access whose address falls in that range
// goes to one Workgroup-storage array of u32 words instead of linear memory
// (docs/memory-model.md). The front end finds the range
// (frontend/shared_memory.h); the helpers below are used by the load/store,
// fill/copy and atomic helpers.
#pragma once

#include <cstdint>
#include <utility>

#include "spirv/kernel_context.h"
#include "support/result.h"

namespace wasmgpu::spirv {

// Declares the Workgroup array for k.shared (when its range is not empty).
void declare_shared_memory(KernelContext& k);

// bool: [ea, ea + width) lies inside the shared range (ea u64, width constant).
Id shared_contains(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t width);
// bool: [ea, ea + width) overlaps the shared range (width u32 value).
Id shared_overlaps(KernelContext& k, FunctionBuilder& f, Id ea, Id width_value);
// {inside, offset} for [ea + delta, ea + delta + span) (ea u64, span at most
// the range's size): whether it lies inside the shared range, and the byte
// offset of its start there (u32, meaningful when inside). In 32 bits when
// ea is an i32 operand plus an offset (ProofState::address_parts) that
// allows it (shared_range_check32).
std::pair<Id, Id> shared_range_check(KernelContext& k, FunctionBuilder& f, Id ea, int64_t delta, uint64_t span);
// The same for the address `operand + offset` (operand u32), offset <= the
// range's start (and above -span; a negative one is passed modulo 2^64):
// operand - (lo - offset) is exactly the offset in the range
// when the address is not below it (also past 4 GiB), and otherwise wraps to
// at least 2^32 - lo, past the range: a 64-bit compare's answer in 32 bits.
std::pair<Id, Id> shared_range_check32(KernelContext& k, FunctionBuilder& f, Id operand, uint64_t offset,
                                       uint64_t span);
// `inside`, or true where a proof (ProofState::shared_proofs) for the id
// `ea` covers [ea + delta, ea + delta + span) under the launch's workgroup
// size: a specialization constant, so the driver drops the run-time test.
Id unless_proven(KernelContext& k, FunctionBuilder& f, Id inside, Id ea, int64_t delta, uint64_t span);
// Workgroup pointer to the u32 word holding byte `ea` (inside the range).
Id shared_word_pointer(KernelContext& k, FunctionBuilder& f, Id ea);
// Workgroup pointer to word `index + words` of the shared array (index u32).
Id shared_word_pointer_at(KernelContext& k, FunctionBuilder& f, Id index, uint32_t words = 0);
// Loads `width` bytes at `ea` (inside the range), zero-extended to u32 (u64 for 8).
// `known_alignment`: what the compiler proved of ea (words need no test when >= 4).
Id shared_load(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t width, uint32_t known_alignment = 1);
// For a 4- or 8-byte access at a 4-aligned ea: {inside, value}, where inside
// tells whether [ea, ea + width) lies in the shared range and value is the
// words there when it does. The words are read at a clamped index, so the
// load is always in bounds and needs no branch before it; value is
// meaningless when inside is false.
std::pair<Id, Id> shared_load_speculative(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t width);
// Stores the low `width` bytes of `value`. Sub-word and unaligned stores update
// each byte with atomic and/or on its word, so neighbouring bytes that other
// invocations write are never lost.
void shared_store(KernelContext& k, FunctionBuilder& f, Id ea, Id value, uint32_t width, uint32_t known_alignment = 1);

}  // namespace wasmgpu::spirv
