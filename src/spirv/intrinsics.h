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
  // or 0 when it returns nothing.
  uint32_t lower_call(FunctionBuilder& f, uint32_t function_index, std::span<const uint32_t> args);

  // Lowers a threads-proposal (0xFE) instruction `instr`: pops its operands
  // from `stack` and pushes its result. memory.atomic.wait32/64 never get
  // here (spirv/lowerable.h: the front end refuses them for this back end).
  void lower_atomic_instruction(FunctionBuilder& f, const wasm::Instr& instr, std::vector<uint32_t>& stack);

  // Emits the atomic helper functions asked for so far.
  void emit_bodies();

 private:
  enum class AtomicOp : uint8_t { Add, Sub, And, Or, Xor, MinS, MaxS, MinU, MaxU, Exchange, CompareExchange, AddF32 };
  uint32_t atomic_helper(AtomicOp op);
  void emit_atomic(uint32_t id, AtomicOp op);
  // One atomic instruction on a u32 `pointer` (Workgroup or PhysicalStorageBuffer).
  uint32_t atomic_on(FunctionBuilder& f, AtomicOp op, uint32_t pointer, uint32_t scope, uint32_t value,
                     uint32_t comparator);

  // One helper function per 0xFE opcode: (u64 ea, operands...) -> result.
  void emit_thread_atomic(uint32_t id, wasm::Opcode op);
  // The operation on the u32 (u64 for 8-byte accesses) word at `pointer`:
  // the whole word for 4- and 8-byte accesses, else the `width` bytes at bit
  // `shift` of it through a compare-exchange loop. Returns the old value
  // (zero-extended), or 0 for stores.
  uint32_t thread_atomic_on_word(FunctionBuilder& f, wasm::Opcode op, uint32_t pointer, spv::Scope scope,
                                 uint32_t storage_semantics, uint32_t width, uint32_t shift,
                                 std::span<const uint32_t> operands);

  // The compare-exchange loop on the u32 word at `pointer`: reads it
  // (`load_semantics`), computes the replacement with `update(current)` and
  // exchanges it in (`exchange_semantics`) until no other invocation wrote the
  // word in between. Returns the word as it was before the exchange.
  uint32_t compare_exchange_loop(FunctionBuilder& f, uint32_t pointer, uint32_t scope, uint32_t load_semantics,
                                 uint32_t exchange_semantics, const std::function<uint32_t(uint32_t)>& update);

  KernelContext& k_;
  std::map<wasm::Opcode, uint32_t> thread_atomic_ids_;
  std::map<wasm::Opcode, bool> thread_atomic_emitted_;
  std::map<AtomicOp, uint32_t> atomic_ids_;
  std::map<AtomicOp, bool> atomic_emitted_;
};

}  // namespace wasmgpu::spirv
