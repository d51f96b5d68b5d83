// Bulk table operations (table.init, table.copy, table.fill, the fill of
// table.grow): SPIR-V functions over u32 slot arrays in the InstanceState.
// Both ranges are checked before any slot moves, as wasm requires.
#include "spirv/runtime_helpers.h"

namespace wasmgpu::spirv {

using Op = spv::Op;

void RuntimeHelpers::table_move(FunctionBuilder& f, Id dest_table, Id dest, Id source_slots, Id source_size, Id source,
                                Id count) {
  call(f, k_.types.void_type, function_id(Helper::TableMove),
       {dest_table, dest, source_slots, source_size, source, count});
}

void RuntimeHelpers::table_fill(FunctionBuilder& f, Id table, Id index, Id value, Id count) {
  call(f, k_.types.void_type, function_id(Helper::TableFill), {table, index, value, count});
}

namespace {

// Address of u32 entry `index` (u64) of the array at `base` (u64).
Id entry_address(KernelContext& k, FunctionBuilder& f, Id base, Id index) {
  return f.op(Op::OpIAdd, k.types.u64, {base, f.op(Op::OpIMul, k.types.u64, {index, k.b.const_u64(4)})});
}

Id widen(KernelContext& k, FunctionBuilder& f, Id value) { return f.op(Op::OpUConvert, k.types.u64, {value}); }

// The current size of the Table record at `table` (u64), widened to u64.
Id table_size64(KernelContext& k, FunctionBuilder& f, Id table) {
  Id address = f.op(Op::OpIAdd, k.types.u64, {table, k.b.const_u64(abi::kTableSize)});
  return widen(k, f, f.load_aligned(k.types.u32, k.device_pointer(f, address, k.types.u32), 4));
}

}  // namespace

void RuntimeHelpers::emit_table_move(Id id) {
  Id params[] = {k_.types.u64, k_.types.u32, k_.types.u64, k_.types.u32, k_.types.u32, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.table_move");
  return_if_trapped(f);
  Id dest_table = f.param(0), dest = widen(k_, f, f.param(1)), source_slots = f.param(2);
  Id source_size = widen(k_, f, f.param(3)), source = widen(k_, f, f.param(4)), count = widen(k_, f, f.param(5));
  Id source_past =
      f.op(Op::OpUGreaterThan, k_.types.bool_type, {f.op(Op::OpIAdd, k_.types.u64, {source, count}), source_size});
  Id dest_past = f.op(Op::OpUGreaterThan, k_.types.bool_type,
                      {f.op(Op::OpIAdd, k_.types.u64, {dest, count}), table_size64(k_, f, dest_table)});
  f.if_else(f.op(Op::OpLogicalOr, k_.types.bool_type, {source_past, dest_past}),
            [&] { trap_and_return(f, abi::TrapKind::TableOutOfBounds); });
  Id dest_slots = f.op(Op::OpIAdd, k_.types.u64, {dest_table, k_.b.const_u64(abi::kTableSlots)});
  Id from = entry_address(k_, f, source_slots, source);
  Id to = entry_address(k_, f, dest_slots, dest);
  auto move = [&](bool backwards) {
    counted_loop(
        f, count,
        [&](Id i) {
          Id slot = f.load_aligned(k_.types.u32, k_.device_pointer(f, entry_address(k_, f, from, i), k_.types.u32), 4);
          f.store_aligned(k_.device_pointer(f, entry_address(k_, f, to, i), k_.types.u32), slot, 4);
        },
        backwards);
  };
  // Backwards when the destination starts inside the source range (memmove).
  f.if_else(f.op(Op::OpUGreaterThan, k_.types.bool_type, {to, from}), [&] { move(true); }, [&] { move(false); });
  f.return_();
  f.finish();
}

void RuntimeHelpers::emit_table_fill(Id id) {
  Id params[] = {k_.types.u64, k_.types.u32, k_.types.u32, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.table_fill");
  return_if_trapped(f);
  Id table = f.param(0), index = widen(k_, f, f.param(1)), value = f.param(2), count = widen(k_, f, f.param(3));
  Id past = f.op(Op::OpUGreaterThan, k_.types.bool_type,
                 {f.op(Op::OpIAdd, k_.types.u64, {index, count}), table_size64(k_, f, table)});
  f.if_else(past, [&] { trap_and_return(f, abi::TrapKind::TableOutOfBounds); });
  Id slots = f.op(Op::OpIAdd, k_.types.u64, {table, k_.b.const_u64(abi::kTableSlots)});
  Id first = entry_address(k_, f, slots, index);
  counted_loop(f, count, [&](Id i) {
    f.store_aligned(k_.device_pointer(f, entry_address(k_, f, first, i), k_.types.u32), value, 4);
  });
  f.return_();
  f.finish();
}

}  // namespace wasmgpu::spirv
