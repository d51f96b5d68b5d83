// Lowers one wasm function to a SPIR-V function: instruction selection
// (function_lowering.cpp) and structured control flow (control_flow.cpp).
//
// The wasm operand stack is tracked at compile time as SPIR-V result ids.
// Values pushed before a construct dominate everything after it, so only
// values that meet at a join (block results, loop parameters) travel through
// Function variables; drivers and spirv-opt promote them to registers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spirv/kernel_context.h"
#include "frontend/access_groups.h"
#include "frontend/front_end_facts.h"
#include "frontend/launch_proof_analysis.h"
#include "frontend/pointer_provenance.h"
#include "spirv/runtime_helpers.h"
#include "support/result.h"

namespace wasmgpu::spirv {

// How the bytes of a v128 (a uvec4, KernelTypes::v128) are read as lanes:
// integer lanes as u32 (i8 and i16 zero- or sign-extended; i32) or u64,
// float lanes as f32 or f64.
enum class LaneShape : uint8_t { I8, I16, I32, I64, F32, F64 };

class FunctionLowering {
 public:
  // Lowers `function_index` into a SPIR-V function of its own (lower()).
  FunctionLowering(KernelContext& k, uint32_t function_index);
  // For a member of a recursive component: instruction selection only, into
  // the component's shared function `shared` (recursive_component.h drives it).
  FunctionLowering(KernelContext& k, uint32_t function_index, FunctionBuilder& shared);
  // `facts`: the front end's about the function (front_end_facts.h).
  Status lower(const FunctionFacts& facts);

  // --- as a member of a recursive component ---
  // The component's state machine (recursive_component.cpp) lowers control
  // flow, calls into the component and the locals' frames itself, and the
  // other instructions through lower_instruction(); this is all it uses.
  // Finds the branch targets and declares the locals (parameters first) as
  // variables of the shared function, which the state machine initialises.
  Status prepare_member();
  const wasm::Function& function() const { return function_; }
  const wasm::FuncType& type() const { return type_; }
  // Whether some branch targets the label that instruction `ip` opens.
  bool targeted(size_t ip) const { return targeted_[ip]; }
  const std::vector<Id>& locals() const { return locals_; }  // Function variables
  const std::vector<wasm::ValType>& local_types() const { return local_types_; }
  // The operand stack as SPIR-V ids; each state starts from one it loads.
  const std::vector<Id>& stack() const { return stack_; }
  void clear_stack() { stack_.clear(); }
  Id pop();
  void push(Id value) { stack_.push_back(value); }
  // Ends a run of exact f32 + - * (float_exact.h) unless `next` continues it:
  // control flow must not separate a run's values from their settling.
  void settle_float_run(wasm::Opcode next);
  Status lower_instruction(const wasm::Instr& instr, size_t index);
  Id nonzero(Id value, Id type);  // bool: value != 0
  std::pair<std::vector<wasm::ValType>, std::vector<wasm::ValType>> block_signature(const wasm::BlockType& block) const;
  // call_indirect in two steps (call_indirect.cpp). resolve_element: the
  // function index in slot `element` (u32) of `table`, trapping "undefined
  // element" past its size and "uninitialized element" on null (then
  // abi::kNullRef). dispatch_indirect: calls that function with `args`,
  // an OpSwitch over the targets of type `type_index`; any other index traps
  // "indirect call type mismatch" (types compare structurally). Pushes the
  // results (zeros after a trap).
  Id resolve_element(uint32_t table, Id element);
  // The OpSwitch of dispatch_indirect on `function` (u32): for each function of
  // type `type_index` the slot may hold, `call_arm(callee)` emits the arm's
  // body; any other index traps "indirect call type mismatch". Ends in the
  // switch's merge block (the state machine of recursive components uses it).
  Status function_switch(Id function, uint32_t type_index, const std::function<Status(uint32_t callee)>& call_arm);

 private:
  // --- control flow (control_flow.cpp) ---
  // One wasm label. Labels that some branch targets become SPIR-V loop
  // constructs ("constructs" below); the others are emitted inline.
  struct Frame {
    enum class Kind : uint8_t { Function, Block, Loop, If } kind;
    size_t else_index = 0, end_index = 0;  // instruction indices
    std::vector<wasm::ValType> params, results;
    size_t height = 0;  // operand stack height below the parameters
    bool construct = false;
    Id header, merge, continue_target;  // construct blocks
    std::vector<Id> result_vars;        // constructs and ifs
    std::vector<Id> param_vars;         // loop constructs
    std::vector<Id> param_values;       // ifs: parameters, for the else arm
    Id if_merge, else_label;
    bool seen_else = false;
    // Frame indices that branches leaving through this construct's merge
    // (with `pending` set) are headed for: its merge must dispatch them.
    std::set<size_t> pending_targets;
    // A loop construct whose merge leads straight to the end of its parent
    // block (see leaves_into_parent_): a branch from the loop to the parent
    // breaks to the loop's merge, with no `pending`.
    bool merges_into_parent = false;
    // A block whose loop child merges into it and whose code between the
    // two ends is being lowered on the loop's fall-through path, inside the
    // loop construct: the loop is closed at this block's end (sunk_loops_).
    bool closes_sunk_loop = false;
  };

  Status find_branch_targets();
  void enter_frame(const wasm::Instr& instr, size_t index);
  void lower_else();
  void lower_end();
  // Branch to the label `depth` levels out, taking its values from the top of
  // the operand stack (left in place). Leaves no open block. A branch back to
  // a loop leaves it instead once the invocation has trapped, unless the
  // caller tested that already (`trap_tested`).
  void branch_to(uint32_t depth, bool trap_tested = false);
  // Whether a branch `depth` levels out goes straight back to a loop (no
  // construct in between), so that br_if can fold the trap test into its
  // condition.
  bool branches_back_directly(uint32_t depth) const;
  void lower_br_table(const wasm::Instr& instr);
  // An OpSwitch on `selector` whose cases (selector value, depth) and default
  // branch to those labels. Leaves no open block.
  void switch_to_depths(Id selector, const std::vector<std::pair<uint32_t, uint32_t>>& cases, uint32_t default_depth);
  void return_values();
  // At a construct's merge: completes or forwards branches that passed through.
  void dispatch_pending(size_t frame_index);
  size_t innermost_construct(size_t below) const;
  void branch_to_frame_directly(size_t frame_index, bool trap_tested = false);
  // Whether a loop starting at `index` inside `parent` can merge into the
  // parent's end: a branch inside it targets the parent, the parent is a
  // block construct and only straight-line code lies between the two ends.
  bool can_merge_into_parent(size_t index, const Frame& parent) const;
  // Emits a loop construct's continue target and merge, whose code dispatches
  // pending branches and otherwise breaks to the (innermost) parent's merge.
  void close_loop_into_parent(Frame loop);
  std::vector<Id> frame_vars(Frame& frame, bool params);
  void store_top(const std::vector<Id>& vars);
  void load_into_stack(const std::vector<Id>& vars, const std::vector<wasm::ValType>& types);
  std::vector<Id> new_vars(const std::vector<wasm::ValType>& types);

  // --- instructions (function_lowering.cpp) ---
  Id type_of(wasm::ValType type) { return k_.types.value_type(type); }
  Id op(spv::Op op, Id type, std::initializer_list<Operand> operands);
  Id float_constant(int width, uint64_t bits);
  Id float_op(spv::Op op, Id type, Id a, Id b);
  Id bool_to_i32(Id condition);
  void binary(spv::Op op, Id type);
  void compare(spv::Op op);  // i32 result of a comparison of the top two values
  void count_bits(wasm::Opcode op);
  void shift(wasm::Opcode op, Id type, uint32_t bits);
  void divide(wasm::Opcode op, Id type, uint32_t bits);
  void float_unary(wasm::Opcode op, Id type, uint32_t bits);
  Id is_nan_bits(Id x, uint32_t bits);
  void float_min_max(bool is_min, Id type, uint32_t bits);
  void truncate(wasm::Opcode op, uint32_t float_bits, uint32_t int_bits, bool is_signed, bool saturating);
  Id sign_extend(Id value, Id type, uint32_t bits, uint32_t from_bits);
  Id effective_address(const wasm::Instr& instr);
  void load(const wasm::Instr& instr, uint32_t width, bool is_signed, wasm::ValType type);
  void store(const wasm::Instr& instr, uint32_t width, wasm::ValType type);
  Status call(uint32_t function_index);
  Status call_indirect(const wasm::Instr& instr);
  // The second step of call_indirect (resolve_element above).
  Status dispatch_indirect(Id function, uint32_t type_index, const std::vector<Id>& args);
  // Tables and element segments in the InstanceState (table_access.cpp).
  Id table_address(uint32_t table);            // u64: the Table record
  Id slot_address(Id table_record, Id index);  // u64 (index u32)
  Id table_length(Id table_record);            // u32: current size
  void table_get(uint32_t table);
  void table_set(uint32_t table);
  void table_size(uint32_t table);
  void table_grow(uint32_t table);
  void table_fill(uint32_t table);
  void table_copy(uint32_t dest_table, uint32_t source_table);
  Status table_init(uint32_t segment, uint32_t table);
  Status elem_drop(uint32_t segment);
  // --- SIMD (simd_lowering.cpp) ---
  using Lanes = LaneShape;
  Status lower_simd(const wasm::Instr& instr);
  Id lane(Id v128, Lanes shape, uint32_t index, bool is_signed = false);
  std::vector<Id> lanes(Id v128, Lanes shape, bool is_signed = false);
  Id from_lanes(Lanes shape, std::span<const Id> values);
  // The integer lanes of a v128 as vectors that SPIR-V operates on at once:
  // i8 lanes as four uvec4 (part k holds lanes k, 4+k, 8+k, 12+k), i16 as
  // two, i32 as the uvec4 itself, i64 as one u64vec2; join() reverses it,
  // keeping each lane's low bits.
  struct LaneParts {
    std::vector<Id> parts;
    Id type{};  // uvec4 or u64vec2
  };
  LaneParts split(Id v128, Lanes shape, bool is_signed);
  Id join(Lanes shape, const LaneParts& parts);
  Id splat_constant(Id vector_type, uint64_t value);
  // Lowers the scalar instruction `scalar` once per lane of `operands`
  // (v128s of `shape`, the first `count` lanes), through the operand stack,
  // so that each lane gets the scalar lowering (exact float mode included).
  Result<std::vector<Id>> per_lane(wasm::Opcode scalar, std::initializer_list<Id> operands, Lanes shape,
                                   uint32_t count);
  void v128_load(const wasm::Instr& instr);
  void v128_store(const wasm::Instr& instr);
  // The `width` bytes (1, 2, 4 or 8) at the instruction's address, as load()
  // reads them (u32, or u64 for width 8).
  Id load_raw(const wasm::Instr& instr, uint32_t width);
  void store_raw(const wasm::Instr& instr, Id ea, Id value, uint32_t width);
  uint32_t memory_pages() const;
  Result<Id> global_var(uint32_t global_index);
  // Globals in the InstanceState (imported, or mutable other than the stack pointer).
  bool global_in_instance(uint32_t global_index) const;
  Status global_get(uint32_t global_index);
  Status global_set(uint32_t global_index);
  void memory_size(uint32_t memory);
  void memory_grow(uint32_t memory);
  Status memory_init(uint32_t segment, uint32_t memory);
  Status data_drop(uint32_t segment);

  KernelContext& k_;
  ModuleBuilder& b_;
  uint32_t index_;
  const wasm::Function& function_;
  const wasm::FuncType& type_;
  std::optional<FunctionBuilder> own_function_;  // empty for a component member
  FunctionBuilder& f_;
  std::vector<Id> locals_;  // Function variables
  std::vector<wasm::ValType> local_types_;
  std::vector<Id> stack_;
  std::vector<Frame> frames_;
  std::vector<bool> targeted_;  // per instruction index: a targeted label
  // Per instruction index: a loop label inside which some branch targets the
  // loop's parent label (clang's early exit from a loop, `br_if 1`).
  std::vector<bool> leaves_into_parent_;
  // Loops closed at their parent block's end (Frame::closes_sunk_loop).
  std::vector<Frame> sunk_loops_;
  Id pending_var_;  // u32: the frame index a multi-level branch heads for
  // What the front end knows of the function (front_end_facts.h): per
  // instruction index, what pointer_provenance proved about memory access
  // addresses (provenance), the same with ranges for each of
  // kProvenWorkgroupSizes after the first (ranges, when the shader has
  // shared memory, for the proofs of shared_proof()), the access the
  // kernel's LaunchProof records there (-1 where none), and access groups.
  // Empty for the members of a recursive component.
  static inline const FunctionFacts kNoFacts{};
  const FunctionFacts* facts_ = &kNoFacts;
  int32_t launch_access(size_t ip) const {
    return ip < facts_->launch_access_index.size() ? facts_->launch_access_index[ip] : -1;
  }
  bool launch_recorded(size_t ip) const { return launch_access(ip) >= 0; }
  bool launch_recorded(std::span<const GroupMember> members) const {
    for (const GroupMember& m : members)
      if (!launch_recorded(m.ip)) return false;
    return !members.empty();
  }
  // The largest of kProvenWorkgroupSizes under which the access at `ip`
  // ([address + offset, + width)) lies in the shared range; 0 when none.
  uint32_t shared_proof(size_t ip, uint64_t offset, uint32_t width) const;
  void note_shared_proof(Id ea, const wasm::Instr& instr, uint32_t width);
  // Records shared_proof for a group's first effective address, covering the
  // members' bytes, when every member has one.
  void prove_group(Id first_ea, std::span<const RuntimeHelpers::GroupedAccess> members,
                   std::span<const GroupMember> positions);
  // Groups of accesses done together (access_groups.h); the variable that
  // holds each issued load's value, by instruction index; the stores of the
  // current store group held back until its last member.
  std::unordered_map<size_t, Id> grouped_values_;
  std::vector<RuntimeHelpers::GroupedAccess> held_stores_;
  // The value of the load at current_ip_ when its group was issued (u32, or
  // u64 for width 8); Id() when it is to be loaded on its own.
  Id grouped_load(Id ea, uint32_t width);
  // Whether the store at current_ip_ belongs to a store group, which then
  // takes it (and does the group's stores at its last member).
  bool grouped_store(Id ea, Id value, uint32_t width);
  size_t current_ip_ = 0;
  const PointerFact* pointer_fact() const {
    return current_ip_ < facts_->provenance.size() ? &facts_->provenance[current_ip_] : nullptr;
  }
};

}  // namespace wasmgpu::spirv
