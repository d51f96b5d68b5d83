// ModuleBuilder: SPIR-V words for one module. Hands out ids, deduplicates
// types and constants, keeps the logical sections apart and assembles them in
// the order the SPIR-V spec requires. FunctionBuilder: the body of one
// function, with the block bookkeeping structured control flow needs.
// Both hand out ids as Id (id.h) and take them as Id: an id and a count, a
// width, a member index or an alignment cannot be swapped. Operand lists are
// Operands (ids, enumerants and literal() numbers); lists that hold only ids
// (struct members, parameters, arguments, constituents) are spans of Id.
// Decorations' and execution modes' extra operands are literals (ids go
// through the *Id forms of those instructions, which nothing here emits), so
// they stay plain numbers.
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
void append_instruction(Words& out, spv::Op op, std::span<const Operand> operands);
inline void append_instruction(Words& out, spv::Op op, std::initializer_list<Operand> operands) {
  append_instruction(out, op, std::span<const Operand>(operands.begin(), operands.size()));
}
// The same with the operands in two parts, `leading` then `rest` (a result
// type and id, say, before the operands), without first joining them.
void append_instruction(Words& out, spv::Op op, std::initializer_list<Operand> leading, std::span<const Operand> rest);
void append_instruction(Words& out, spv::Op op, std::initializer_list<Operand> leading, std::span<const Id> rest);
// A literal string operand: UTF-8, NUL-terminated, padded to whole words.
void append_string(Words& out, std::string_view text);

class ModuleBuilder {
 public:
  Id fresh_id() { return Id(next_id_++); }

  void capability(spv::Capability capability) { capabilities_.insert(capability); }
  Id glsl_std_450();  // the GLSL.std.450 extended instruction set

  void entry_point(Id function, std::string_view name);  // GLCompute
  void execution_mode(Id function, spv::ExecutionMode mode, std::initializer_list<uint32_t> literals);
  void name(Id id, std::string_view text);
  void decorate(Id id, spv::Decoration decoration, std::initializer_list<uint32_t> literals = {});
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
  Id sampled_image_type(Id image_type);
  Id pointer_type(spv::StorageClass storage, Id pointee);
  Id function_type(Id result, std::span<const Id> params);
  Id struct_type(std::span<const Id> members);
  // A struct that is never shared with another use (it gets decorations).
  Id unique_struct_type(std::span<const Id> members);

  // Constants (deduplicated).
  Id const_u32(uint32_t value);
  Id const_u64(uint64_t value);
  // The value of an id made by const_u32 or const_u64; nullopt for any other id.
  std::optional<uint64_t> integer_constant(Id id) const;
  Id const_u8(uint8_t value);
  Id const_f32_bits(uint32_t bits);
  Id const_f64_bits(uint64_t bits);
  Id const_bool(bool value);
  Id const_null(Id type);
  Id const_composite(Id type, std::span<const Id> constituents);
  Id spec_const_u32(uint32_t default_value, uint32_t spec_id);
  Id spec_const_composite(Id type, std::span<const Id> constituents);
  // OpSpecConstantOp: `op` applied to constant or specialization constant
  // operands, evaluated when the pipeline is specialised.
  Id spec_const_op(Id type, spv::Op op, std::span<const Operand> operands);

  // A module-scope variable; listed in the entry point's interface.
  Id global_variable(Id pointer_type, spv::StorageClass storage, Id initializer = Id());

  // Completed functions, in order; a function may come in several pieces.
  // Kept apart until assemble(), which copies each word once.
  void add_function_words(Words words) { functions_.push_back(std::move(words)); }

  // The type of a constant or instruction result made through this builder.
  Id type_of(Id id) const;
  void set_type(Id id, Id type) {
    size_t page = id.value() / kTypesPerPage;
    if (page >= result_type_pages_.size()) result_type_pages_.resize(page + 1);
    if (!result_type_pages_[page]) result_type_pages_[page] = std::make_unique<TypePage>();  // zeroed
    (*result_type_pages_[page])[id.value() % kTypesPerPage] = type;
  }

  // The whole module. Call after every function is added.
  Words assemble() const;

 private:
  // The id of the type or constant `op` with these operands (the result id
  // left out), declared on first use.
  Id dedup(spv::Op op, std::span<const Operand> operands_without_result, bool has_type);
  Id dedup(spv::Op op, std::initializer_list<Operand> operands_without_result, bool has_type) {
    return dedup(op, std::span<const Operand>(operands_without_result.begin(), operands_without_result.size()),
                 has_type);
  }

  struct WordsHash {
    size_t operator()(const Words& words) const noexcept;
  };

  // The OpConstant of a 32- or 64-bit scalar `type` with value `bits`,
  // declared on first use (integer ones also in integer_constants_).
  Id scalar_constant(Id type, uint32_t width, uint64_t bits, bool is_integer);
  struct ScalarConstant {
    Id type;
    uint64_t bits;
    bool operator==(const ScalarConstant&) const = default;
  };
  struct ScalarConstantHash {
    size_t operator()(const ScalarConstant& constant) const noexcept;
  };

  uint32_t next_id_ = 1;
  Id glsl_;
  std::set<spv::Capability> capabilities_;
  Words entry_points_, execution_modes_, debug_names_, annotations_, types_and_globals_;
  std::vector<Words> functions_;
  std::vector<Id> interface_;
  std::vector<std::pair<Id, std::string>> entry_names_;
  // Declared types and constants by opcode and operands (no result id).
  std::unordered_map<Words, Id, WordsHash> dedup_;
  // The key dedup() looks up, built here so that a lookup of a type or
  // constant that exists already allocates nothing.
  Words dedup_key_;
  // By result id: its type, Id() for ids without a recorded type. Ids are
  // handed out densely from 1 and most get a type, so the table is an array
  // by id, megabytes for large modules: kept in pages, which it grows by
  // without copying what it holds, and which are small enough for the heap
  // to reuse from one compile to the next.
  static constexpr size_t kTypesPerPage = 4096;
  using TypePage = std::array<Id, kTypesPerPage>;
  std::vector<std::unique_ptr<TypePage>> result_type_pages_;
  // The u32, u64, f32 and f64 constants (most constant requests) by type
  // and value, apart from dedup_: no key vector to build per request.
  std::unordered_map<ScalarConstant, Id, ScalarConstantHash> scalar_constants_;
  std::unordered_map<Id, uint64_t> integer_constants_;  // by id: the u32 and u64 constants' values
  // uint_type and float_type by width (8, 16, 32, 64 bits), Id() until
  // declared: every constant asks for its type, so these skip dedup().
  std::array<Id, 4> uint_types_{}, float_types_{};
};

// Builds one function. Blocks are emitted in the order they are begun; a block
// is reachable when some already emitted branch targets it (or it is the
// entry). Emitting into an unreachable point is a bug, so callers ask open().
class FunctionBuilder {
 public:
  FunctionBuilder(ModuleBuilder& module, Id id, Id result_type, std::span<const Id> param_types);

  ModuleBuilder& module() { return module_; }
  Id id() const { return id_; }
  Id result_type() const { return result_type_; }
  Id param(size_t index) const { return params_.at(index); }

  // A Function-storage variable (declared in the entry block).
  Id variable(Id value_type);

  // Starts block `label`. Returns whether it is reachable; an unreachable block
  // gets OpUnreachable and leaves nothing open, unless `keep_open` (continue
  // targets must branch back to their header even when never reached).
  bool begin_block(Id label, bool keep_open = false);
  bool open() const { return open_; }
  bool was_targeted(Id label) const { return targeted_.contains(label); }

  // Instructions with a result (returns the result id) and without.
  //
  // Ids are handed out in call order, and types, constants and helper
  // functions are made on first use, so the order of the calls is the
  // output. C++ leaves the order of a call's arguments unspecified (GCC and
  // clang differ), while the elements of a braced list go left to right: an
  // emitter never passes two calls that make ids or instructions as separate
  // arguments of one call (`f.op(o, k.types.f32(), {g()})`,
  // `sel(c, u32(1), u32(0))`), it names them in locals first. The locals keep
  // the order GCC gave before the rule (the last argument first), so the
  // golden SPIR-V holds under both compilers.
  Id op(spv::Op op, Id type, std::initializer_list<Operand> operands);
  Id op(spv::Op op, Id type, std::span<const Operand> operands);
  Id op(spv::Op op, Id type, std::span<const Id> operands);  // operands that are all ids
  void op_void(spv::Op op, std::initializer_list<Operand> operands);
  void op_void(spv::Op op, std::span<const Operand> operands);
  // GLSL.std.450 `instruction` (its operands are all ids).
  Id glsl(uint32_t instruction, Id type, std::initializer_list<Id> operands);
  // OpFunctionCall of `function` with `args`.
  Id call(Id result_type, Id function, std::span<const Id> args);
  Id call(Id result_type, Id function, std::initializer_list<Id> args) {
    return call(result_type, function, std::span<const Id>(args.begin(), args.size()));
  }

  // Terminators. switch_'s cases: (literal selector value, label).
  void branch(Id target);
  void branch_conditional(Id condition, Id if_true, Id if_false);
  void switch_(Id selector, Id default_label, const std::vector<std::pair<uint32_t, Id>>& cases);
  void return_();
  void return_value(Id value);
  // Returns the function's zero (or nothing for void): used after traps.
  void return_default();
  void unreachable();
  void selection_merge(Id merge);
  void loop_merge(Id merge, Id continue_target);

  // if (condition) { then_fn(); } else { else_fn(); } as a selection construct.
  // Either arm may terminate; afterwards open() tells whether code continues.
  void if_else(Id condition, const std::function<void()>& then_fn, const std::function<void()>& else_fn = {});

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
  Id load(Id type, Id pointer);
  void store(Id pointer, Id value);
  Id load_aligned(Id type, Id pointer, uint32_t alignment);
  void store_aligned(Id pointer, Id value, uint32_t alignment);

  // Completes the function and hands its words to the module.
  void finish();

 private:
  void terminate(spv::Op op, std::initializer_list<Operand> operands);

  ModuleBuilder& module_;
  Id id_, result_type_, function_type_;
  std::vector<Id> params_, param_types_;
  Id entry_label_;
  Words variables_, body_;
  bool open_ = true;
  // Labels some branch targets. Its nodes come from a buffer of the
  // builder's own, released all at once with it: a set per function, an
  // insert per branch, nothing erased.
  std::pmr::monotonic_buffer_resource targeted_memory_;
  std::pmr::unordered_set<Id> targeted_{&targeted_memory_};
};

}  // namespace wasmgpu::spirv
