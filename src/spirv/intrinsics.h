// The lowering of the wasmgpu intrinsics (frontend/intrinsic_catalog.h: their
// names, signatures and kinds): a call to one is lowered to SPIR-V in place of
// a function call.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "spirv/kernel_context.h"
#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::spirv {

class Intrinsics {
 public:
  explicit Intrinsics(KernelContext& k) : k_(k) {}

  // Lowers a call to the imported intrinsic `function_index` (already checked
  // by frontend::check_import_call) with wasm arguments `args`; returns the result id,
  // or Id() when it returns nothing.
  Id lower_call(FunctionBuilder& f, uint32_t function_index, std::span<const Id> args);

  // Lowers a threads-proposal (0xFE) instruction `instr`: pops its operands
  // from `stack` and pushes its result. memory.atomic.wait32/64 never get
  // here (spirv/lowerable.h: the front end refuses them for this back end).
  void lower_atomic_instruction(FunctionBuilder& f, const wasm::Instr& instr, std::vector<Id>& stack);

  // Emits the atomic helper functions asked for so far.
  void emit_bodies();

 private:
  enum class AtomicOp : uint8_t { Add, Sub, And, Or, Xor, MinS, MaxS, MinU, MaxU, Exchange, CompareExchange, AddF32 };
  Id atomic_helper(AtomicOp op);
  void emit_atomic(Id id, AtomicOp op);
  // One atomic instruction on a u32 `pointer` (Workgroup or PhysicalStorageBuffer).
  Id atomic_on(FunctionBuilder& f, AtomicOp op, Id pointer, Id scope, Id value, Id comparator);

  // One helper function per 0xFE opcode: (u64 ea, operands...) -> result.
  void emit_thread_atomic(Id id, wasm::Opcode op);
  // The operation on the u32 (u64 for 8-byte accesses) word at `pointer`:
  // the whole word for 4- and 8-byte accesses, else the `width` bytes at bit
  // `shift` (a u32) of it through a compare-exchange loop. Returns the old value
  // (zero-extended), or Id() for stores. `storage_semantics`: the
  // MemorySemanticsMask bits of the storage class, combined with the ordering.
  Id thread_atomic_on_word(FunctionBuilder& f, wasm::Opcode op, Id pointer, spv::Scope scope,
                           uint32_t storage_semantics, uint32_t width, Id shift, std::span<const Id> operands);

  // The compare-exchange loop on the u32 word at `pointer`: reads it
  // (`load_semantics`), computes the replacement with `update(current)` and
  // exchanges it in (`exchange_semantics`) until no other invocation wrote the
  // word in between. Returns the word as it was before the exchange.
  Id compare_exchange_loop(FunctionBuilder& f, Id pointer, Id scope, Id load_semantics, Id exchange_semantics,
                           const std::function<Id(Id)>& update);

  KernelContext& k_;
  std::map<wasm::Opcode, Id> thread_atomic_ids_;
  std::map<wasm::Opcode, bool> thread_atomic_emitted_;
  std::map<AtomicOp, Id> atomic_ids_;
  std::map<AtomicOp, bool> atomic_emitted_;
};

}  // namespace wasmgpu::spirv
