// call_indirect through the compile-time table (table.h): an OpSwitch on the
// element index with one arm per distinct callee of the expected type, an arm
// for null slots (trap "uninitialized element"), one for slots whose function
// has another type (trap "indirect call type mismatch", types compared
// structurally), and the default for indices past the table's end (trap
// "undefined element"). Results meet in Function variables; trapping arms
// leave zeros there and the invocation winds down (traps.cpp).
#include <map>

#include "spirv/function_lowering.h"
#include "spirv/table.h"

namespace wasmgpu::spirv {

using Op = spv::Op;

Status FunctionLowering::call_indirect(const wasm::Instr& instr) {
  if (!k_.table || instr.imm1 != 0)
    return make_error("function " + k_.module.function_name(index_) + " uses call_indirect without a usable table");
  const wasm::FuncType& expected = k_.module.types.at(instr.imm0);
  uint32_t element = pop();
  size_t first = stack_.size() - expected.params.size();
  std::vector<uint32_t> args(stack_.begin() + first, stack_.end());
  stack_.resize(first);

  std::vector<uint32_t> result_vars = new_vars(expected.results);
  for (size_t i = 0; i < result_vars.size(); ++i)
    f_.store(result_vars[i], b_.const_null(type_of(expected.results[i])));
  WASMGPU_TRY(table_switch(element, expected, [&](uint32_t callee) -> Status {
    auto id = k_.function_ids.find(callee);
    if (id == k_.function_ids.end())
      return make_error("function " + k_.module.function_name(callee) + " was not compiled");
    std::vector<uint32_t> operands{id->second};
    operands.insert(operands.end(), args.begin(), args.end());
    uint32_t result = f_.op(Op::OpFunctionCall, k_.result_type(expected.results), operands);
    if (expected.results.size() == 1) {
      f_.store(result_vars[0], result);
    } else {
      for (size_t i = 0; i < expected.results.size(); ++i)
        f_.store(result_vars[i], op(Op::OpCompositeExtract, type_of(expected.results[i]), {result, uint32_t(i)}));
    }
    return {};
  }));
  for (size_t i = 0; i < result_vars.size(); ++i) push(f_.load(type_of(expected.results[i]), result_vars[i]));
  return {};
}

Status FunctionLowering::table_switch(uint32_t element, const wasm::FuncType& expected,
                                      const std::function<Status(uint32_t callee)>& call_arm) {
  uint32_t merge = b_.fresh_id(), undefined = b_.fresh_id();
  uint32_t null_label = 0, mismatch_label = 0;
  std::map<uint32_t, uint32_t> callee_labels;  // function index -> label
  std::vector<std::pair<uint32_t, uint32_t>> cases;
  const auto& slots = k_.table->slots;
  for (size_t i = 0; i < slots.size(); ++i) {
    uint32_t label = 0;
    if (!slots[i]) {
      if (!null_label) null_label = b_.fresh_id();
      label = null_label;
    } else if (k_.module.function_type(*slots[i]) != expected) {
      if (!mismatch_label) mismatch_label = b_.fresh_id();
      label = mismatch_label;
    } else {
      auto [it, inserted] = callee_labels.emplace(*slots[i], 0);
      if (inserted) it->second = b_.fresh_id();
      label = it->second;
    }
    cases.emplace_back(uint32_t(i), label);
  }
  f_.selection_merge(merge);
  f_.switch_(element, undefined, cases);

  for (auto [callee, label] : callee_labels) {
    f_.begin_block(label);
    WASMGPU_TRY(call_arm(callee));
    f_.branch(merge);
  }
  auto trap_arm = [&](uint32_t label, abi::TrapKind kind) {
    if (!label) return;
    f_.begin_block(label);
    k_.helpers->trap(f_, kind);
    f_.branch(merge);
  };
  trap_arm(null_label, abi::TrapKind::UninitializedElement);
  trap_arm(mismatch_label, abi::TrapKind::IndirectCallTypeMismatch);
  trap_arm(undefined, abi::TrapKind::UndefinedElement);
  f_.begin_block(merge);
  return {};
}

}  // namespace wasmgpu::spirv
