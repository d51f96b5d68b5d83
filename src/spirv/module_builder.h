// ModuleBuilder: SPIR-V words for one module. Hands out ids, deduplicates
// types and constants, keeps the logical sections apart and assembles them in
// the order the SPIR-V spec requires. FunctionBuilder: the body of one
// function, with the block bookkeeping structured control flow needs.
// Both hand out ids as Id (id.h); the parameters that sit beside a count, a
// width, a member index, an alignment or an instruction number take Id, so
// the two cannot be swapped. Operand lists and the other parameters take ids
// as numbers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <memory_resource>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <spirv/unified1/spirv.hpp11>

#include "spirv/id.h"

namespace wasmgpu::spirv {

using Words = std::vector<uint32_t>;

// Appends one instruction (opcode word with its length, then operands).
void append_instruction(Words& out, spv::Op op, std::span<const uint32_t> operands);
inline void append_instruction(Words& out, spv::Op op, std::initializer_list<uint32_t> operands) {
  append_instruction(out, op, std::span<const uint32_t>(operands.begin(), operands.size()));
}
// The same with the operands in two parts, `leading` then `rest` (a result
// type and id, say, before the operands), without first joining them.
void append_instruction(Words& out, spv::Op op, std::initializer_list<uint32_t> leading,
                        std::span<const uint32_t> rest);
// A literal string operand: UTF-8, NUL-terminated, padded to whole words.
void append_string(Words& out, std::string_view text);

class ModuleBuilder {
 public:
  Id fresh_id() { return Id(next_id_++); }

  void capability(spv::Capability capability) { capabilities_.insert(capability); }
  Id glsl_std_450();  // the GLSL.std.450 extended instruction set

  void entry_point(uint32_t function, std::string_view name);  // GLCompute
  void execution_mode(uint32_t function, spv::ExecutionMode mode, std::initializer_list<uint32_t> literals);
  void name(uint32_t id, std::string_view text);
  void decorate(uint32_t id, spv::Decoration decoration, std::initializer_list<uint32_t> literals = {});
  void member_decorate(Id struct_type, uint32_t member, spv::Decoration decoration,
                       std::initializer_list<uint32_t> literals = {});

  // Types (deduplicated).
  Id void_type();
  Id bool_type();
  Id uint_type(uint32_t width);  // unsigned: wasm integers carry no sign
  Id float_type(uint32_t width);
  Id vector_type(Id component, uint32_t count);
  Id array_type(Id element, Id length_constant);
  Id runtime_array_type(Id element);
  // OpTypeImage of `sampled_type` with `dim`, not depth, arrayed or
  // multisampled; `sampled` 1 (used with a sampler) or 2 (storage), format Unknown.
  Id image_type(Id sampled_type, spv::Dim dim, uint32_t sampled);
  Id sampler_type();
  Id sampled_image_type(uint32_t image_type);
  Id pointer_type(spv::StorageClass storage, Id pointee);
  Id function_type(uint32_t result, std::span<const uint32_t> params);
  Id struct_type(std::span<const uint32_t> members);
  // A struct that is never shared with another use (it gets decorations).
  Id unique_struct_type(std::span<const uint32_t> members);

  // Constants (deduplicated).
  Id const_u32(uint32_t value);
  Id const_u64(uint64_t value);
  // The value of an id made by const_u32 or const_u64; nullopt for any other id.
  std::optional<uint64_t> integer_constant(uint32_t id) const;
  Id const_u8(uint8_t value);
  Id const_f32_bits(uint32_t bits);
  Id const_f64_bits(uint64_t bits);
  Id const_bool(bool value);
  Id const_null(Id type);
  Id const_composite(Id type, std::span<const uint32_t> constituents);
  Id spec_const_u32(uint32_t default_value, uint32_t spec_id);
  Id spec_const_composite(uint32_t type, std::span<const uint32_t> constituents);
  // OpSpecConstantOp: `op` applied to constant or specialization constant
  // operands, evaluated when the pipeline is specialised.
  Id spec_const_op(uint32_t type, spv::Op op, std::span<const uint32_t> operands);

  // A module-scope variable; listed in the entry point's interface.
  Id global_variable(uint32_t pointer_type, spv::StorageClass storage, uint32_t initializer = 0);

  // Completed functions, in order; a function may come in several pieces.
  // Kept apart until assemble(), which copies each word once.
  void add_function_words(Words words) { functions_.push_back(std::move(words)); }

  // The type of a constant or instruction result made through this builder.
  Id type_of(uint32_t id) const;
  void set_type(uint32_t id, uint32_t type) {
    size_t page = id / kTypesPerPage;
    if (page >= result_type_pages_.size()) result_type_pages_.resize(page + 1);
    if (!result_type_pages_[page]) result_type_pages_[page] = std::make_unique<TypePage>();  // zeroed
    (*result_type_pages_[page])[id % kTypesPerPage] = type;
  }

  // The whole module. Call after every function is added.
  Words assemble() const;

 private:
  // The id of the type or constant `op` with these operands (the result id
  // left out), declared on first use.
  Id dedup(spv::Op op, std::span<const uint32_t> operands_without_result, bool has_type);
  Id dedup(spv::Op op, std::initializer_list<uint32_t> operands_without_result, bool has_type) {
    return dedup(op, std::span<const uint32_t>(operands_without_result.begin(), operands_without_result.size()),
                 has_type);
  }

  struct WordsHash {
    size_t operator()(const Words& words) const noexcept;
  };

  // The OpConstant of a 32- or 64-bit scalar `type` with value `bits`,
  // declared on first use (integer ones also in integer_constants_).
  Id scalar_constant(Id type, uint32_t width, uint64_t bits, bool is_integer);
  struct ScalarConstant {
    uint32_t type;
    uint64_t bits;
    bool operator==(const ScalarConstant&) const = default;
  };
  struct ScalarConstantHash {
    size_t operator()(const ScalarConstant& constant) const noexcept;
  };

  uint32_t next_id_ = 1;
  uint32_t glsl_ = 0;
  std::set<spv::Capability> capabilities_;
  Words entry_points_, execution_modes_, debug_names_, annotations_, types_and_globals_;
  std::vector<Words> functions_;
  std::vector<uint32_t> interface_;
  std::vector<std::pair<uint32_t, std::string>> entry_names_;
  // Declared types and constants by opcode and operands (no result id).
  std::unordered_map<Words, uint32_t, WordsHash> dedup_;
  // The key dedup() looks up, built here so that a lookup of a type or
  // constant that exists already allocates nothing.
  Words dedup_key_;
  // By result id: its type, 0 for ids without a recorded type. Ids are
  // handed out densely from 1 and most get a type, so the table is an array
  // by id, megabytes for large modules: kept in pages, which it grows by
  // without copying what it holds, and which are small enough for the heap
  // to reuse from one compile to the next.
  static constexpr size_t kTypesPerPage = 4096;
  using TypePage = std::array<uint32_t, kTypesPerPage>;
  std::vector<std::unique_ptr<TypePage>> result_type_pages_;
  // The u32, u64, f32 and f64 constants (most constant requests) by type
  // and value, apart from dedup_: no key vector to build per request.
  std::unordered_map<ScalarConstant, uint32_t, ScalarConstantHash> scalar_constants_;
  std::unordered_map<uint32_t, uint64_t> integer_constants_;  // by id: the u32 and u64 constants' values
  // uint_type and float_type by width (8, 16, 32, 64 bits), 0 until declared:
  // every constant asks for its type, so these skip dedup().
  std::array<uint32_t, 4> uint_types_{}, float_types_{};
};

// Builds one function. Blocks are emitted in the order they are begun; a block
// is reachable when some already emitted branch targets it (or it is the
// entry). Emitting into an unreachable point is a bug, so callers ask open().
class FunctionBuilder {
 public:
  FunctionBuilder(ModuleBuilder& module, uint32_t id, uint32_t result_type, std::span<const uint32_t> param_types);

  ModuleBuilder& module() { return module_; }
  Id id() const { return Id(id_); }
  Id result_type() const { return Id(result_type_); }
  Id param(size_t index) const { return Id(params_.at(index)); }

  // A Function-storage variable (declared in the entry block).
  Id variable(Id value_type);

  // Starts block `label`. Returns whether it is reachable; an unreachable block
  // gets OpUnreachable and leaves nothing open, unless `keep_open` (continue
  // targets must branch back to their header even when never reached).
  bool begin_block(uint32_t label, bool keep_open = false);
  bool open() const { return open_; }
  bool was_targeted(uint32_t label) const { return targeted_.contains(label); }

  // Instructions with a result (returns the result id) and without.
  Id op(spv::Op op, uint32_t type, std::initializer_list<uint32_t> operands);
  Id op(spv::Op op, uint32_t type, std::span<const uint32_t> operands);
  void op_void(spv::Op op, std::initializer_list<uint32_t> operands);
  void op_void(spv::Op op, std::span<const uint32_t> operands);
  Id glsl(uint32_t instruction, Id type, std::initializer_list<uint32_t> operands);
  // OpFunctionCall of `function` with `args`.
  Id call(uint32_t result_type, uint32_t function, std::span<const uint32_t> args);
  Id call(uint32_t result_type, uint32_t function, std::initializer_list<uint32_t> args) {
    return call(result_type, function, std::span<const uint32_t>(args.begin(), args.size()));
  }

  // Terminators.
  void branch(uint32_t target);
  void branch_conditional(uint32_t condition, uint32_t if_true, uint32_t if_false);
  void switch_(uint32_t selector, uint32_t default_label, const std::vector<std::pair<uint32_t, uint32_t>>& cases);
  void return_();
  void return_value(uint32_t value);
  // Returns the function's zero (or nothing for void): used after traps.
  void return_default();
  void unreachable();
  void selection_merge(uint32_t merge);
  void loop_merge(uint32_t merge, uint32_t continue_target);

  // if (condition) { then_fn(); } else { else_fn(); } as a selection construct.
  // Either arm may terminate; afterwards open() tells whether code continues.
  void if_else(uint32_t condition, const std::function<void()>& then_fn, const std::function<void()>& else_fn = {});

  // The blocks of a loop construct made by loop(), their ids allocated in
  // this order before anything is emitted.
  struct LoopBlocks {
    Id header, body, continue_target, merge;
  };
  // for (;;) { body_fn(); continue_fn(); } as a loop construct: the header
  // (OpLoopMerge) branches to the body block, where `body_fn` emits code
  // that may break (branch to `merge`) or continue (branch to
  // `continue_target`); falling off its end continues. `continue_fn` emits
  // the continue target's code, which must end in the back-edge to the
  // header (possibly conditional, leaving to the merge); without it the
  // continue target just branches back. Ends in the merge block and returns
  // whether it is reachable.
  bool loop(const std::function<void(const LoopBlocks&)>& body_fn,
            const std::function<void(const LoopBlocks&)>& continue_fn = {});

  // Convenience loads/stores through memory operands.
  Id load(uint32_t type, uint32_t pointer);
  void store(uint32_t pointer, uint32_t value);
  Id load_aligned(Id type, Id pointer, uint32_t alignment);
  void store_aligned(Id pointer, uint32_t value, uint32_t alignment);

  // Completes the function and hands its words to the module.
  void finish();

 private:
  void terminate(spv::Op op, std::initializer_list<uint32_t> operands);

  ModuleBuilder& module_;
  uint32_t id_, result_type_, function_type_;
  std::vector<uint32_t> params_, param_types_;
  uint32_t entry_label_;
  Words variables_, body_;
  bool open_ = true;
  // Labels some branch targets. Its nodes come from a buffer of the
  // builder's own, released all at once with it: a set per function, an
  // insert per branch, nothing erased.
  std::pmr::monotonic_buffer_resource targeted_memory_;
  std::pmr::unordered_set<uint32_t> targeted_{&targeted_memory_};
};

}  // namespace wasmgpu::spirv
