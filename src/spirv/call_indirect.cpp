// call_indirect through a table in the InstanceState, in two steps:
// resolve_element loads the function index from the table (with its traps),
// dispatch_indirect calls it through an OpSwitch over the functions the slot
// may hold (table.h) whose type matches the expected one. Results meet in
// Function variables; trapping paths leave zeros there and the invocation
// winds down (traps.cpp).
#include "spirv/function_lowering.h"
#include "frontend/table.h"

namespace wasmgpu::spirv {

using Op = spv::Op;

Status FunctionLowering::call_indirect(const wasm::Instr& instr) {
  const wasm::FuncType& expected = k_.module.types.at(instr.imm0);
  Id element = pop();
  size_t first = stack_.size() - expected.params.size();
  std::vector<Id> args(stack_.begin() + first, stack_.end());
  stack_.resize(first);
  Id function = resolve_element(instr.imm1, element);
  return dispatch_indirect(function, instr.imm0, args);
}

Id FunctionLowering::resolve_element(uint32_t table, Id element) {
  Id record = table_address(table);
  Id function_var = f_.variable(k_.types.u32);
  f_.store(function_var, b_.const_u32(abi::kNullRef));
  Id in_bounds = op(Op::OpULessThan, k_.types.bool_type, {element, table_length(record)});
  f_.if_else(
      in_bounds,
      [&] {
        f_.store(function_var,
                 f_.load_aligned(k_.types.u32, k_.device_pointer(f_, slot_address(record, element), k_.types.u32), 4));
      },
      [&] { k_.helpers->trap(f_, abi::TrapKind::UndefinedElement); });
  Id function = f_.load(k_.types.u32, function_var);
  // After an undefined element the index is null too; only the first trap counts.
  f_.if_else(op(Op::OpIEqual, k_.types.bool_type, {function, b_.const_u32(abi::kNullRef)}),
             [&] { k_.helpers->trap(f_, abi::TrapKind::UninitializedElement); });
  return function;
}

Status FunctionLowering::dispatch_indirect(Id function, uint32_t type_index, const std::vector<Id>& args) {
  const wasm::FuncType& expected = k_.module.types.at(type_index);
  std::vector<Id> result_vars = new_vars(expected.results);
  for (size_t i = 0; i < result_vars.size(); ++i) f_.store(result_vars[i], b_.const_null(type_of(expected.results[i])));

  WASMGPU_TRY(function_switch(function, type_index, [&](uint32_t callee) -> Status {
    auto id = k_.function_ids.find(callee);
    if (id == k_.function_ids.end())
      return make_error(ErrorCode::Internal, "function " + k_.module.function_name(callee) + " was not compiled");
    Id result = f_.call(k_.types.result_type(expected.results), id->second, args);
    if (expected.results.size() == 1) {
      f_.store(result_vars[0], result);
    } else {
      for (size_t i = 0; i < expected.results.size(); ++i)
        f_.store(result_vars[i],
                 op(Op::OpCompositeExtract, type_of(expected.results[i]), {result, literal(uint32_t(i))}));
    }
    return {};
  }));
  for (size_t i = 0; i < result_vars.size(); ++i) push(f_.load(type_of(expected.results[i]), result_vars[i]));
  return {};
}

Status FunctionLowering::function_switch(Id function, uint32_t type_index,
                                         const std::function<Status(uint32_t callee)>& call_arm) {
  std::vector<std::pair<uint32_t, Id>> cases;  // function index -> label
  for (uint32_t callee : indirect_callees(k_.module, *k_.indirect_targets, type_index))
    cases.emplace_back(callee, b_.fresh_id());
  Id merge = b_.fresh_id(), mismatch = b_.fresh_id();
  f_.selection_merge(merge);
  f_.switch_(function, mismatch, cases);
  for (auto [callee, label] : cases) {
    f_.begin_block(label);
    WASMGPU_TRY(call_arm(callee));
    f_.branch(merge);
  }
  // Null (after its trap) and every function of another type.
  f_.begin_block(mismatch);
  k_.helpers->trap(f_, abi::TrapKind::IndirectCallTypeMismatch);
  f_.branch(merge);
  f_.begin_block(merge);
  return {};
}

}  // namespace wasmgpu::spirv
