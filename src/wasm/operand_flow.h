// The def-use view of a function's operand stack, built once for every
// analysis and back end (docs/compiler.md, "The front end"): for each
// instruction, which values it pops and which it pushes, each value named by
// an id. A value is the result of one instruction, or a join: the values of a
// block's, if's or function's end and of a loop's parameters at its header,
// where paths with different values meet. A join lists the values that flow
// into it (its incoming values), from every path the structure allows:
// conservatively, whether or not an analysis can tell a path is never taken.
//
// An analysis that once simulated the stack keeps facts per value id instead
// and reads operands(ip); it follows locals and control flow itself.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "wasm/module.h"

namespace wasmgpu::wasm {

using ValueId = uint32_t;

struct StackValue {
  enum class Kind : uint8_t {
    Unknown,  // id 0: what dead code pops from the polymorphic stack
    Result,   // pushed by instruction `ip`, its `index`th result
    Join,     // `ip` is an `end` (its results) or a `loop` (its parameters at the header)
  };
  Kind kind = Kind::Unknown;
  uint32_t ip = 0;
  uint32_t index = 0;
};

class OperandFlow {
 public:
  static constexpr ValueId kUnknown = 0;

  // Values popped by body[ip], the deepest first. A block, loop or if pops
  // its parameters (and an if its condition, last); branches pop the values
  // they carry to their label; `end` and `else` pop the values that fall
  // through to them when that is reachable.
  std::span<const ValueId> operands(size_t ip) const { return slice(ip, operand_at_, operand_ids_); }
  // Values pushed by body[ip]: new results, the joins of an `end`, a loop's
  // parameters at its header (joins). A block or if gives back its
  // parameters and a br_if what it carries: the same ids as their operands.
  std::span<const ValueId> results(size_t ip) const { return slice(ip, result_at_, result_ids_); }
  // The values that meet at a join (empty for other values).
  std::span<const ValueId> incoming(ValueId join) const;
  const StackValue& value(ValueId id) const { return values_[id]; }
  size_t value_count() const { return values_.size(); }
  // Whether body[ip] can run: dead code follows an unconditional branch,
  // return or unreachable up to the end (or else) of its construct, and
  // every instruction after an end that no path reaches.
  bool reachable(size_t ip) const { return reachable_[ip]; }

  // The instruction whose result operand k of body[ip] is, when it is the
  // result of an instruction (not a join, not unknown).
  std::optional<uint32_t> producer(size_t ip, size_t k) const;

  // `function` is a defined function of the validated `module`.
  static OperandFlow build(const Module& module, const Function& function);

 private:
  class Builder;
  static std::span<const ValueId> slice(size_t i, const std::vector<uint32_t>& at, const std::vector<ValueId>& ids) {
    return {ids.data() + at[i], at[i + 1] - at[i]};
  }

  std::vector<StackValue> values_;
  // Per instruction (and one past the last): where its ids start.
  std::vector<uint32_t> operand_at_, result_at_;
  std::vector<ValueId> operand_ids_, result_ids_;
  std::vector<uint32_t> incoming_at_;  // per value (and one past the last): start in incoming_ids_
  std::vector<ValueId> incoming_ids_;
  std::vector<bool> reachable_;
};

}  // namespace wasmgpu::wasm
