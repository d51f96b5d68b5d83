// Counted loops in wasm code: the locals a `loop` steps by a constant each
// time round, and the test that sends it round again, so that the values
// they take at the loop's header can be bounded (pointer_provenance.h's
// ranges; docs/compiler.md, "Proven shared accesses").
//
// The shape is what clang emits for `for (i = c0; i != end; i += step)` and
// its strength-reduced companions:
//
//   loop
//     ...                                  ;; no other write of i, anywhere
//     local.get i  i32.const step  i32.add  local.set|tee i   ;; at depth 0
//     ...
//     local.tee i | local.get i   [i32.const end  i32.ne|i32.lt_u|i32.lt_s]
//     br_if 0                               ;; the loop's only back-edge
//   end
//
// Every variable's update runs once per trip round the loop (it is at the
// loop's top level, before the only branch back), so on the k-th arrival at
// the header (k = 0, 1, ...) a variable holds its entry value + k * step.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "wasm/module.h"

namespace wasmgpu::frontend {

struct LoopInduction {
  struct Variable {
    uint32_t local = 0;
    int64_t step = 0;  // as a signed 32-bit constant
  };
  enum class Test : uint8_t { NotEqual, LessUnsigned, LessSigned };
  std::vector<Variable> variables;  // every local stepped once per trip
  size_t control = 0;               // index in variables of the one the back-edge tests
  Test test = Test::NotEqual;
  int64_t end = 0;  // the bound it is tested against (0 for a bare `br_if`)
};

// The induction of the loop whose `loop` instruction is body[loop_ip], when
// it has the shape above.
std::optional<LoopInduction> find_loop_induction(const std::vector<wasm::Instr>& body, size_t loop_ip);

// How many times the header is reached (at most) when the control variable
// enters the loop holding `entry` (a 32-bit value); nullopt when the test
// does not bound it below 2^32 trips.
std::optional<uint64_t> header_visits(const LoopInduction& induction, uint32_t entry);

}  // namespace wasmgpu::frontend
