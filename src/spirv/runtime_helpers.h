// SPIR-V functions that compiled code calls for what is too large to inline
// at every use: recording a trap (traps.cpp), translating wasm addresses to
// device addresses and the loads and stores built on it (memory_access.cpp),
// bulk memory (bulk_memory.cpp) and the bulk table operations (table_helpers.cpp).
// Accesses whose address is proven to lie in the module memory (access_path.h)
// are emitted inline instead. Each helper is declared when first asked for and
// emitted by emit_bodies() once every wasm function is lowered.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "abi/launch_abi.h"
#include "spirv/access_path.h"
#include "spirv/kernel_context.h"
#include "frontend/pointer_provenance.h"

namespace wasmgpu::spirv {

class RuntimeHelpers {
 public:
  explicit RuntimeHelpers(KernelContext& k) : k_(k) {}

  // --- traps (traps.cpp) ---
  // Records trap `kind` for this invocation in the TrapRecord (unless it
  // already trapped: only the first trap counts) and sets `trapped`. Code
  // goes on, but from then on nothing reaches memory and every loop exits at
  // its next back-edge, so the invocation winds down to `main` without
  // effects. Traps do not return early: an early return in the middle of a
  // function makes NIR-based drivers nest all code after it, one level per
  // trap site, which lavapipe could not compile past a few dozen accesses.
  // `access`, for a trap of a memory access: its wasm effective address (u64)
  // and byte count (u32), which CompileOptions::trap_sites reports.
  struct TrappedAccess {
    Id address, bytes;
  };
  void trap(FunctionBuilder& f, abi::TrapKind kind, std::optional<TrappedAccess> access = std::nullopt);
  // The access to pass to trap() (u64 `ea`; `bytes` a u32 id or a constant
  // width); nullopt without trap sites, so that no constant is added then.
  std::optional<TrappedAccess> trapped_access(Id ea, Id bytes) const;
  std::optional<TrappedAccess> trapped_access(Id ea, uint32_t width);
  // trap(), then returns the function's zero value. For `unreachable`, and
  // inside the small runtime helpers, where the nesting stays bounded.
  void trap_and_return(FunctionBuilder& f, abi::TrapKind kind, std::optional<TrappedAccess> access = std::nullopt);
  // Returns the function's zero value if the invocation has trapped (used
  // inside runtime helpers only).
  void return_if_trapped(FunctionBuilder& f);
  // The invocation's `trapped` flag (a bool).
  Id trapped(FunctionBuilder& f);
  // The host clock the runtime wrote after the trap record when it recorded
  // the launch (u64 nanoseconds): CLOCK_MONOTONIC where `monotonic` (a
  // bool) holds, else CLOCK_REALTIME (abi::kHostClockRealtime).
  Id host_clock(FunctionBuilder& f, Id monotonic);

  // --- memory (memory_access.cpp, bulk_memory.cpp) ---
  // Loads `width` (1, 2, 4 or 8) bytes at wasm effective address `ea` (u64),
  // zero-extended to u32 (u64 for width 8). Traps on an unmapped address
  // (and then yields 0); stores, fills and copies do nothing once the
  // invocation has trapped. Each call picks the access's path from what is
  // known of `ea` at compile time (a constant id, ModuleBuilder::
  // integer_constant) and counts it in KernelContext::access_paths.
  // `fact`, when given, is what pointer_provenance proved about the access's
  // i32 address operand in the kernel function (ea = address + `offset`):
  // an address derived from a pointer parameter takes the Parameter paths.
  // `proven_at_launch`: the access is one the kernel's LaunchProof records
  // (ProofState::launch_proof), so that its range check also passes where
  // the parameter's bit of abi::kSpecProvenParams is set.
  Id load(FunctionBuilder& f, Id ea, uint32_t width, const PointerFact* fact = nullptr, uint64_t offset = 0,
          bool proven_at_launch = false);
  // A member of a group of accesses (access_groups.h).
  struct GroupedAccess {
    uint32_t width;             // 4 or 8
    int64_t delta;              // effective address minus the first member's
    uint32_t constant;          // GroupMember::constant
    uint64_t offset;            // the access's offset
    const PointerFact* fact;    // of its address operand
    Id ea;                      // stores: the member's effective address (u64)
    Id value;                   //   and value (u32, or u64 for width 8)
    int32_t proof_access = -1;  // loads: its index in ProofState::launch_proof.accesses, -1 if none
  };
  // Issues a group's loads at its first member, whose effective address is
  // `first_ea` (grouped_accesses.cpp): one range check and the loads, wide
  // where they are contiguous and aligned, and each member's general path
  // when the check fails. Returns, per member, a Function variable holding
  // its value (u32, or u64 for width 8); empty when the members cannot share
  // a path, and then each is to be loaded on its own. `proven_at_launch`:
  // every member is recorded in the LaunchProof (as for load()).
  std::vector<Id> load_group(FunctionBuilder& f, Id first_ea, std::span<const GroupedAccess> members,
                             bool proven_at_launch);
  // Does a group's stores (at its last member): one range check, then the
  // stores, wide where they are contiguous and aligned, or each member's
  // general path in order. Returns false, emitting nothing, when the members
  // cannot share a path; then each is to be stored on its own, in order.
  bool store_group(FunctionBuilder& f, std::span<const GroupedAccess> members, bool proven_at_launch);
  // What the members of a group have in common, when they can share a path.
  struct GroupPlan {
    bool shared = false;          // the shared-memory path, else Parameter
    uint32_t param = 0;           // Parameter: the pointer argument's index
    int64_t lo = 0, hi = 0;       // the bytes the members cover, relative to the first
    std::vector<int64_t> deltas;  // distinct, ascending
    std::map<int64_t, uint32_t> width_at;
  };
  // Stores the low `width` bytes of `value` (u32, or u64 for width 8).
  void store(FunctionBuilder& f, Id ea, Id value, uint32_t width, const PointerFact* fact = nullptr,
             uint64_t offset = 0, bool proven_at_launch = false);
  // A v128 access (16 bytes, a uvec4 value) whose address is proven to
  // derive from a pointer parameter at a 16-byte aligned offset: one range
  // check and one 16-byte access, else two 8-byte accesses of the general
  // path (the store's upper half first, so that one past the end writes
  // nothing). Returns nullopt / false, emitting nothing, when the access is
  // not on that path; the caller then takes the scalar paths.
  std::optional<Id> load_v128(FunctionBuilder& f, Id ea, const PointerFact* fact, uint64_t offset,
                              bool proven_at_launch);
  bool store_v128(FunctionBuilder& f, Id ea, Id value, const PointerFact* fact, uint64_t offset, bool proven_at_launch);
  // memory.fill / memory.copy (all operands u32), with wasm's bounds checks.
  void fill(FunctionBuilder& f, Id dest, Id value, Id count);
  void copy(FunctionBuilder& f, Id dest, Id source, Id count);
  // memory.init of a data segment of `segment_size` bytes at `segment_offset`
  // in the data-segments buffer, whose dropped flag is the u32 at InstanceState
  // + `dropped_offset` (operands u32; the segment facts are constants).
  void memory_init(FunctionBuilder& f, Id dest, Id source, Id count, uint32_t segment_size, uint64_t segment_offset,
                   uint32_t dropped_offset);

  // --- memories after the first (extra_memories.cpp; frontend/memories.h) ---
  // Loads/stores `width` bytes at `ea` (u64) of memory `memory` >= 1: checked
  // against that memory's current size (a trap outside it, as load()/store()
  // do), then at its own device bytes. v128 accesses are two 8-byte ones.
  Id memory_load(FunctionBuilder& f, uint32_t memory, Id ea, uint32_t width);
  void memory_store(FunctionBuilder& f, uint32_t memory, Id ea, Id value, uint32_t width);
  // memory.fill on memory >= 1; memory.copy where either memory is >= 1
  // (memory 0's range is translated as every memory-0 access is). Operands
  // u32; both ranges are checked before any byte moves.
  void memory_fill_in(FunctionBuilder& f, uint32_t memory, Id dest, Id value, Id count);
  void memory_copy_between(FunctionBuilder& f, uint32_t dest_memory, uint32_t source_memory, Id dest, Id source,
                           Id count);
  // memory.init into `memory` (any index; 0 is memory_init()).
  void memory_init_in(FunctionBuilder& f, uint32_t memory, Id dest, Id source, Id count, uint32_t segment_size,
                      uint64_t segment_offset, uint32_t dropped_offset);
  // Byte offset of memory `memory`'s (>= 1) ExtraMemory record in the InstanceState.
  uint32_t extra_memory_record(uint32_t memory) const;

  // --- tables (table_helpers.cpp) ---
  // Copies `count` slots to the Table record at `dest_table` (u64), from slot
  // `dest`, out of the u32 array at `source_slots` (u64) holding
  // `source_size` entries, from entry `source`: backwards when the ranges
  // overlap that way (table.copy), front to back otherwise. Unless both
  // ranges fit, traps "out of bounds table access" and moves nothing.
  void table_move(FunctionBuilder& f, Id dest_table, Id dest, Id source_slots, Id source_size, Id source, Id count);
  // Sets `count` slots of the Table record at `table` (u64) from `index` to
  // `value` (a reference), with the same bounds check.
  void table_fill(FunctionBuilder& f, Id table, Id index, Id value, Id count);

  // Device address of wasm range [ea, ea + width) (u64; width a u32 value);
  // traps and returns from `f` when it is unmapped. For atomics.
  Id device_address(FunctionBuilder& f, Id ea, Id width) { return translate(f, ea, width); }
  // Sets AbiVariables::memory_base_var to the module memory's device
  // address; `main` calls it once the launch block and instance state are known.
  void set_memory_base(FunctionBuilder& f);

  // Emits the body of every helper asked for so far (they may ask for more).
  void emit_bodies();

 private:
  enum class Helper : uint8_t {
    Trap,
    Translate,
    Load,
    Store,
    LoadDevice,
    StoreDevice,
    Fill,
    Copy,
    Init,
    FillBytes,
    CopyBytes,
    TableMove,
    TableFill,
    MemoryLoad,   // width = memory << 4 | bytes
    MemoryStore,  // the same
    MemoryFill,   // width = memory
    MemoryCopy    // width = destination memory << 16 | source memory
  };
  struct Key {
    Helper helper;
    uint32_t width;
    auto operator<=>(const Key&) const = default;
  };
  Id function_id(Helper helper, uint32_t width = 0);
  Id call(FunctionBuilder& f, Id result_type, Id function, std::initializer_list<Id> args);

  void emit_trap(Id id);
  void emit_translate(Id id);
  void emit_load(Id id, uint32_t width);
  void emit_store(Id id, uint32_t width);
  void emit_load_device(Id id, uint32_t width);
  void emit_store_device(Id id, uint32_t width);
  void emit_fill(Id id);
  void emit_copy(Id id);
  void emit_init(Id id, uint32_t memory);
  void emit_table_move(Id id);
  void emit_table_fill(Id id);
  void emit_fill_bytes(Id id);
  void emit_copy_bytes(Id id);
  void emit_memory_load(Id id, uint32_t key);
  void emit_memory_store(Id id, uint32_t key);
  void emit_memory_fill(Id id, uint32_t memory);
  void emit_memory_copy(Id id, uint32_t key);
  // Inside a helper: the device address of [ea, ea + size) (u64, size u32)
  // in memory `memory`; traps and returns when it is outside the memory's
  // current size. Memory 0 is translate().
  Id translate_in(FunctionBuilder& f, uint32_t memory, Id ea, Id size);

  AccessPath path_of(std::optional<uint64_t> start, std::optional<uint64_t> size);
  // The Parameter path an access with this fact may take, if any.
  std::optional<AccessPath> parameter_path(const PointerFact* fact, uint64_t offset, uint32_t width);
  // For an access [ea, ea + width) from pointer parameter `param`: whether it
  // lies inside the argument's buffer (a bool), and its device address then.
  std::pair<Id, Id> parameter_check(FunctionBuilder& f, uint32_t param, Id ea, uint32_t width, bool proven_at_launch);
  // The same for [ea + delta, ea + delta + span), a group's bytes: in 32-bit
  // arithmetic when ea's parts (ProofState::address_parts) allow.
  // A check passes too where the access is `proven_at_launch` (as for
  // load()); region_compare is the compare alone, whose address it changes
  // the form of.
  std::pair<Id, Id> region_check(FunctionBuilder& f, uint32_t param, Id ea, int64_t delta, uint64_t span,
                                 bool proven_at_launch);
  std::pair<Id, Id> region_compare(FunctionBuilder& f, uint32_t param, Id ea, int64_t delta, uint64_t span,
                                   bool proven_at_launch);
  // The Indexed path an access with this fact may take, if any.
  std::optional<AccessPath> indexed_path(const PointerFact* fact, uint64_t offset, uint32_t width,
                                         std::optional<uint64_t> constant);
  // The part of the module memory an Indexed access may touch directly: the
  // largest piece of the initial memory outside the stack and shared ranges.
  std::optional<std::pair<uint64_t, uint64_t>> indexed_module_range();
  // `module()` when [ea, ea + width) lies inside indexed_module_range(), else `general()`.
  void indexed_module_or_general(FunctionBuilder& f, Id ea, uint32_t width, const std::function<void()>& module,
                                 const std::function<void()>& general);
  // Emits the Indexed access: `shared()` inside the shared range, `module()`
  // inside indexed_module_range(), else `general()`.
  void indexed_access(FunctionBuilder& f, Id ea, uint32_t width, const std::function<void()>& shared,
                      const std::function<void()>& module, const std::function<void()>& general);
  // The device access at `address` on a Parameter path.
  Id load_device(FunctionBuilder& f, Id address, uint32_t width, AccessPath path);
  void store_device(FunctionBuilder& f, Id address, Id value, uint32_t width, AccessPath path);
  // memory_base + ea (u64): the device address of a module-memory address.
  Id module_address(FunctionBuilder& f, Id ea);
  // The module memory's current size in bytes (u64).
  Id current_memory_bytes(FunctionBuilder& f);
  // Whether [start, start + size) (u64s) ends within the current size.
  Id within_memory(FunctionBuilder& f, Id start, Id size);
  // The device access at `address` (u64) whose alignment is known to be
  // `alignment` (a power of two; 1 when unknown): one typed access when it
  // suffices, else words or bytes. Stores do not check `trapped`.
  Id load_at(FunctionBuilder& f, Id address, uint32_t width, uint32_t alignment);
  // Inside a helper: the access at `address` chosen by its run-time alignment, then return.
  void return_load_by_alignment(FunctionBuilder& f, Id address, uint32_t width);
  void store_by_alignment_and_return(FunctionBuilder& f, Id address, Id value, uint32_t width);
  void store_at(FunctionBuilder& f, Id address, Id value, uint32_t width, uint32_t alignment);
  // Calls of the general load/store helpers (not counted in access_paths).
  Id load_translated(FunctionBuilder& f, Id ea, uint32_t width);
  void store_translated(FunctionBuilder& f, Id ea, Id value, uint32_t width);

  // Grouped accesses (grouped_accesses.cpp).
  std::optional<GroupPlan> plan_group(std::span<const GroupedAccess> members, bool stores);
  std::pair<Id, Id> group_check(FunctionBuilder& f, const GroupPlan& plan, Id first_ea, bool proven_at_launch);
  Id group_base_index(FunctionBuilder& f, const GroupPlan& plan, const PointerFact& first, uint64_t first_offset,
                      Id offset);
  // Whether a load group's four words at `delta` (device address `address`)
  // take one 16-byte access: the launch's proof (where the group is
  // `proven_at_launch`) or a subgroup vote.
  Id aligned_for_launch(FunctionBuilder& f, const GroupPlan& plan, std::span<const GroupedAccess> members,
                        int64_t delta, Id address, bool proven_at_launch);

  // Workgroup-shared memory paths of the load/store and fill/copy helpers.
  void shared_access(FunctionBuilder& f, Id ea, uint32_t width, const std::function<void()>& inside);
  // `backwards`: a bool, or Id() for forwards.
  void shared_bulk(FunctionBuilder& f, std::initializer_list<Id> starts, Id count, const std::function<void(Id)>& byte,
                   Id backwards = Id());

  // Field of the LaunchBlock (u32 or u64, naturally aligned).
  Id launch_field(FunctionBuilder& f, uint32_t offset, uint32_t width);
  // Device address of wasm range [ea, ea + width) (u64, width u32); traps and
  // returns from `f` when it is unmapped.
  Id translate(FunctionBuilder& f, Id ea, Id width);
  // for (i = 0; i < count; ++i) body(i), with u64 i and count.
  void counted_loop(FunctionBuilder& f, Id count, const std::function<void(Id)>& body, bool backwards = false);

  KernelContext& k_;
  std::map<Key, Id> ids_;
  std::map<Key, bool> emitted_;
};

}  // namespace wasmgpu::spirv
