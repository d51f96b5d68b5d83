// Table instructions on the tables in the InstanceState (abi/launch_abi.h):
// table.get/set/size/grow/fill/copy/init and elem.drop. References are u32
// function indices, abi::kNullRef for null. A trapped invocation writes no
// table (traps.cpp); within one launch, tables are shared by all invocations
// and concurrent writes race, like memory.
#include <cassert>

#include "spirv/function_lowering.h"

namespace wasmgpu::spirv {

using Op = spv::Op;

Id FunctionLowering::table_address(uint32_t table) {
  assert(table < k_.layout.table_offsets.size() && "imported tables are refused by the call graph");
  Id base = f_.load(k_.types.u64, k_.abi.instance_state_var);
  return op(Op::OpIAdd, k_.types.u64, {base, b_.const_u64(k_.layout.table_offsets[table])});
}

Id FunctionLowering::slot_address(Id table_record, Id index) {
  Id offset = op(Op::OpIMul, k_.types.u64, {op(Op::OpUConvert, k_.types.u64, {index}), b_.const_u64(4)});
  Id slots = op(Op::OpIAdd, k_.types.u64, {table_record, b_.const_u64(abi::kTableSlots)});
  return op(Op::OpIAdd, k_.types.u64, {slots, offset});
}

Id FunctionLowering::table_length(Id table_record) {
  Id address = op(Op::OpIAdd, k_.types.u64, {table_record, b_.const_u64(abi::kTableSize)});
  return f_.load_aligned(k_.types.u32, k_.device_pointer(f_, address, k_.types.u32), 4);
}

void FunctionLowering::table_get(uint32_t table) {
  Id index = pop();
  Id record = table_address(table);
  Id value_var = f_.variable(k_.types.u32);
  f_.store(value_var, b_.const_u32(abi::kNullRef));
  f_.if_else(
      op(Op::OpULessThan, k_.types.bool_type, {index, table_length(record)}),
      [&] {
        f_.store(value_var,
                 f_.load_aligned(k_.types.u32, k_.device_pointer(f_, slot_address(record, index), k_.types.u32), 4));
      },
      [&] { k_.helpers->trap(f_, abi::TrapKind::TableOutOfBounds); });
  push(f_.load(k_.types.u32, value_var));
}

void FunctionLowering::table_set(uint32_t table) {
  Id value = pop(), index = pop();
  Id record = table_address(table);
  f_.if_else(
      op(Op::OpULessThan, k_.types.bool_type, {index, table_length(record)}),
      [&] {
        f_.if_else(op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)}), [&] {
          f_.store_aligned(k_.device_pointer(f_, slot_address(record, index), k_.types.u32), value, 4);
        });
      },
      [&] { k_.helpers->trap(f_, abi::TrapKind::TableOutOfBounds); });
}

void FunctionLowering::table_size(uint32_t table) { push(table_length(table_address(table))); }

void FunctionLowering::table_grow(uint32_t table) {
  // Succeeds while the new size fits the slots the table reserved
  // (table_capacity: its maximum, or what the runtime reserved below it).
  Id delta = pop(), value = pop();
  Id record = table_address(table);
  Id old_size = table_length(record);
  Id capacity_address = op(Op::OpIAdd, k_.types.u64, {record, b_.const_u64(abi::kTableCapacity)});
  Id capacity = f_.load_aligned(k_.types.u32, k_.device_pointer(f_, capacity_address, k_.types.u32), 4);
  Id new_size = op(Op::OpIAdd, k_.types.u64,
                   {op(Op::OpUConvert, k_.types.u64, {old_size}), op(Op::OpUConvert, k_.types.u64, {delta})});
  Id fits = op(Op::OpULessThanEqual, k_.types.bool_type, {new_size, op(Op::OpUConvert, k_.types.u64, {capacity})});
  Id ok = op(Op::OpLogicalAnd, k_.types.bool_type,
             {fits, op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)})});
  f_.if_else(ok, [&] {
    Id size_address = op(Op::OpIAdd, k_.types.u64, {record, b_.const_u64(abi::kTableSize)});
    Id size32 = op(Op::OpUConvert, k_.types.u32, {new_size});
    f_.store_aligned(k_.device_pointer(f_, size_address, k_.types.u32), size32, 4);
    k_.helpers->table_fill(f_, record, old_size, value, delta);
  });
  push(op(Op::OpSelect, k_.types.u32, {ok, old_size, b_.const_u32(0xFFFF'FFFFu)}));
}

void FunctionLowering::table_fill(uint32_t table) {
  Id count = pop(), value = pop(), index = pop();
  k_.helpers->table_fill(f_, table_address(table), index, value, count);
}

void FunctionLowering::table_copy(uint32_t dest_table, uint32_t source_table) {
  Id count = pop(), source = pop(), dest = pop();
  Id source_record = table_address(source_table);
  Id source_slots = op(Op::OpIAdd, k_.types.u64, {source_record, b_.const_u64(abi::kTableSlots)});
  Id source_length = table_length(source_record);
  Id dest_record = table_address(dest_table);
  k_.helpers->table_move(f_, dest_record, dest, source_slots, source_length, source, count);
}

Status FunctionLowering::table_init(uint32_t segment, uint32_t table) {
  if (segment >= k_.module.elements.size())
    return make_error(ErrorCode::Validation, "function " + k_.module.function_name(index_) +
                                                 " uses table.init of element segment " + std::to_string(segment) +
                                                 ", which does not exist");
  Id count = pop(), source = pop(), dest = pop();
  // A dropped segment (every active one after instantiation) has no items left.
  Id dropped_pointer = k_.instance_pointer(f_, k_.layout.elem_dropped_offset + 4 * segment, k_.types.u32);
  Id dropped =
      op(Op::OpINotEqual, k_.types.bool_type, {f_.load_aligned(k_.types.u32, dropped_pointer, 4), b_.const_u32(0)});
  const uint32_t items = uint32_t(k_.module.elements[segment].items.size());
  Id size = op(Op::OpSelect, k_.types.u32, {dropped, b_.const_u32(0), b_.const_u32(items)});
  Id base = f_.load(k_.types.u64, k_.abi.instance_state_var);
  Id item_slots = op(Op::OpIAdd, k_.types.u64, {base, b_.const_u64(k_.layout.elem_items_offsets[segment])});
  k_.helpers->table_move(f_, table_address(table), dest, item_slots, size, source, count);
  return {};
}

Status FunctionLowering::elem_drop(uint32_t segment) {
  if (segment >= k_.module.elements.size())
    return make_error(ErrorCode::Validation, "function " + k_.module.function_name(index_) +
                                                 " uses elem.drop of element segment " + std::to_string(segment) +
                                                 ", which does not exist");
  uint32_t offset = k_.layout.elem_dropped_offset + 4 * segment;
  f_.if_else(op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)}), [&] {
    Id dropped = b_.const_u32(1);
    f_.store_aligned(k_.instance_pointer(f_, offset, k_.types.u32), dropped, 4);
  });
  return {};
}

}  // namespace wasmgpu::spirv
