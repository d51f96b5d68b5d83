// SPIR-V functions that compiled code calls for what is too large to inline
// at every use: recording a trap (traps.cpp), translating wasm addresses to
// device addresses and the loads, stores and bulk-memory loops built on it
// (memory_access.cpp). Each helper is declared when first asked for and
// emitted by emit_bodies() once every wasm function is lowered.
#pragma once

#include <cstdint>
#include <map>

#include "abi/launch_abi.h"
#include "spirv/kernel_context.h"

namespace wasmgpu::spirv {

class RuntimeHelpers {
 public:
  explicit RuntimeHelpers(KernelContext& k) : k_(k) {}

  // --- traps (traps.cpp) ---
  // Records trap `kind` for this invocation in the TrapRecord, sets `trapped`
  // and returns the function's zero value: the trapping invocation unwinds.
  void trap_and_return(FunctionBuilder& f, abi::TrapKind kind);
  // After a call that may trap: returns the function's zero value if it did.
  void return_if_trapped(FunctionBuilder& f);

  // --- memory (memory_access.cpp) ---
  // Loads `width` (1, 2, 4 or 8) bytes at wasm effective address `ea` (u64),
  // zero-extended to u32 (u64 for width 8). Traps on an unmapped address;
  // callers must return_if_trapped afterwards (done here).
  uint32_t load(FunctionBuilder& f, uint32_t ea, uint32_t width);
  // Stores the low `width` bytes of `value` (u32, or u64 for width 8).
  void store(FunctionBuilder& f, uint32_t ea, uint32_t value, uint32_t width);
  // memory.fill / memory.copy (all operands u32), with wasm's bounds checks.
  void fill(FunctionBuilder& f, uint32_t dest, uint32_t value, uint32_t count);
  void copy(FunctionBuilder& f, uint32_t dest, uint32_t source, uint32_t count);

  // Emits the body of every helper asked for so far (they may ask for more).
  void emit_bodies();

 private:
  enum class Helper : uint8_t { Trap, Translate, Load, Store, Fill, Copy };
  struct Key {
    Helper helper;
    uint32_t width;
    auto operator<=>(const Key&) const = default;
  };
  uint32_t function_id(Helper helper, uint32_t width = 0);
  uint32_t call(FunctionBuilder& f, uint32_t result_type, uint32_t function,
                std::initializer_list<uint32_t> args);

  void emit_trap(uint32_t id);
  void emit_translate(uint32_t id);
  void emit_load(uint32_t id, uint32_t width);
  void emit_store(uint32_t id, uint32_t width);
  void emit_fill(uint32_t id);
  void emit_copy(uint32_t id);

  // Field of the LaunchBlock (u32 or u64, naturally aligned).
  uint32_t launch_field(FunctionBuilder& f, uint32_t offset, uint32_t width);
  // Device address of wasm range [ea, ea + width) (u64, width u32); traps and
  // returns from `f` when it is unmapped.
  uint32_t translate(FunctionBuilder& f, uint32_t ea, uint32_t width);
  // for (i = 0; i < count; ++i) body(i), with u64 i and count.
  void counted_loop(FunctionBuilder& f, uint32_t count, const std::function<void(uint32_t)>& body,
                    bool backwards = false);

  KernelContext& k_;
  std::map<Key, uint32_t> ids_;
  std::map<Key, bool> emitted_;
};

}  // namespace wasmgpu::spirv
