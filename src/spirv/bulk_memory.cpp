// memory.fill, memory.copy and memory.init. wasm checks every range first and
// traps before writing anything, so each operation checks, then moves bytes
// in a loop of its own (the *_bytes helpers, on device addresses). Ranges
// proven to lie in the module memory (access_path.h) skip translation, and
// with it the region-table scan: constant operands inside the initial size
// need no check at all.
#include <algorithm>

#include "spirv/runtime_helpers.h"
#include "spirv/workgroup_memory.h"

namespace wasmgpu::spirv {

namespace {
using Op = spv::Op;
}

void RuntimeHelpers::fill(FunctionBuilder& f, Id dest, Id value, Id count) {
  k_.uses_memory = true;
  const std::optional<uint64_t> constant_dest = k_.b.integer_constant(dest);
  const std::optional<uint64_t> constant_count = k_.b.integer_constant(count);
  const AccessPath path = path_of(constant_dest, constant_count);
  k_.access_paths.add(path);
  if (path == AccessPath::Translated) {
    call(f, k_.types.void_type, function_id(Helper::Fill), {dest, value, count});
    return;
  }
  Id dest64 = f.op(Op::OpUConvert, k_.types.u64, {dest});
  auto fill_bytes = [&] {
    Id address = module_address(f, dest64);
    Id byte = f.op(Op::OpUConvert, k_.types.u8(), {value});
    call(f, k_.types.void_type, function_id(Helper::FillBytes), {address, byte, count});
  };
  if (path == AccessPath::Direct) return fill_bytes();
  f.if_else(within_memory(f, dest64, f.op(Op::OpUConvert, k_.types.u64, {count})), fill_bytes,
            [&] { trap(f, abi::TrapKind::MemoryOutOfBounds, trapped_access(dest64, count)); });
}

void RuntimeHelpers::copy(FunctionBuilder& f, Id dest, Id source, Id count) {
  k_.uses_memory = true;
  const std::optional<uint64_t> constant_count = k_.b.integer_constant(count);
  const AccessPath path = std::max(path_of(k_.b.integer_constant(dest), constant_count),
                                   path_of(k_.b.integer_constant(source), constant_count));
  k_.access_paths.add(path);
  if (path == AccessPath::Translated) {
    call(f, k_.types.void_type, function_id(Helper::Copy), {dest, source, count});
    return;
  }
  // Both ranges are constants here, so the copy's direction is known.
  const uint64_t to = *k_.b.integer_constant(dest), from = *k_.b.integer_constant(source);
  Id dest64 = k_.b.const_u64(to), source64 = k_.b.const_u64(from);
  auto copy_bytes = [&] {
    Id dest_address = module_address(f, dest64), source_address = module_address(f, source64);
    Id forward = k_.b.const_bool(to <= from);
    call(f, k_.types.void_type, function_id(Helper::CopyBytes), {dest_address, source_address, count, forward});
  };
  if (path == AccessPath::Direct) return copy_bytes();
  Id count64 = f.op(Op::OpUConvert, k_.types.u64, {count});
  Id fits = f.op(Op::OpLogicalAnd, k_.types.bool_type,
                 {within_memory(f, dest64, count64), within_memory(f, source64, count64)});
  f.if_else(fits, copy_bytes, [&] { trap(f, abi::TrapKind::MemoryOutOfBounds); });
}

void RuntimeHelpers::memory_init(FunctionBuilder& f, Id dest, Id source, Id count, uint32_t segment_size,
                                 uint64_t segment_offset, uint32_t dropped_offset) {
  k_.uses_memory = true;
  k_.access_paths.add(AccessPath::Translated);
  Id size = k_.b.const_u32(segment_size);
  Id offset = k_.b.const_u64(segment_offset);
  Id dropped = k_.b.const_u32(dropped_offset);
  call(f, k_.types.void_type, function_id(Helper::Init), {dest, source, count, size, offset, dropped});
}

// fill_bytes(address u64, byte u8, count u32): `count` bytes at a device address.
void RuntimeHelpers::emit_fill_bytes(Id id) {
  Id params[] = {k_.types.u64, k_.types.u8(), k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.fill_bytes");
  return_if_trapped(f);  // a trapped invocation writes nothing more
  Id address = f.param(0), byte = f.param(1);
  counted_loop(f, f.op(Op::OpUConvert, k_.types.u64, {f.param(2)}), [&](Id i) {
    const Id u8 = k_.types.u8();
    Id pointer = k_.device_pointer(f, f.op(Op::OpIAdd, k_.types.u64, {address, i}), u8);
    f.store_aligned(pointer, byte, 1);
  });
  f.return_();
  f.finish();
}

// copy_bytes(dest u64, source u64, count u32, forwards bool) between device
// addresses. Overlapping ranges lie in one region, whose device bytes are in
// wasm order: copying forwards when dest <= source (else backwards) is
// memmove. Callers pass the direction, a constant when they know it, so that
// the driver drops the other loop.
void RuntimeHelpers::emit_copy_bytes(Id id) {
  Id params[] = {k_.types.u64, k_.types.u64, k_.types.u32, k_.types.bool_type};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.copy_bytes");
  return_if_trapped(f);
  Id dest = f.param(0), source = f.param(1);
  Id count = f.op(Op::OpUConvert, k_.types.u64, {f.param(2)});
  auto copy_byte = [&](Id i) {
    const Id u8 = k_.types.u8();
    Id from = k_.device_pointer(f, f.op(Op::OpIAdd, k_.types.u64, {source, i}), u8);
    Id to = k_.device_pointer(f, f.op(Op::OpIAdd, k_.types.u64, {dest, i}), u8);
    f.store_aligned(to, f.load_aligned(u8, from, 1), 1);
  };
  f.if_else(
      f.param(3), [&] { counted_loop(f, count, copy_byte); },
      [&] { counted_loop(f, count, copy_byte, /*backwards=*/true); });
  f.return_();
  f.finish();
}

void RuntimeHelpers::emit_fill(Id id) {
  Id params[] = {k_.types.u32, k_.types.u32, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.memory_fill");
  return_if_trapped(f);
  Id dest = f.op(Op::OpUConvert, k_.types.u64, {f.param(0)});
  Id count = f.param(2);
  shared_bulk(f, {dest}, count,
              [&](Id i) { store_translated(f, f.op(Op::OpIAdd, k_.types.u64, {dest, i}), f.param(1), 1); });
  Id address = translate(f, dest, count);
  Id byte = f.op(Op::OpUConvert, k_.types.u8(), {f.param(1)});
  call(f, k_.types.void_type, function_id(Helper::FillBytes), {address, byte, count});
  f.return_();
  f.finish();
}

void RuntimeHelpers::emit_copy(Id id) {
  Id params[] = {k_.types.u32, k_.types.u32, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.memory_copy");
  return_if_trapped(f);
  Id count = f.param(2);
  Id from = f.op(Op::OpUConvert, k_.types.u64, {f.param(1)}), to = f.op(Op::OpUConvert, k_.types.u64, {f.param(0)});
  shared_bulk(
      f, {to, from}, count,
      [&](Id i) {
        Id byte = load_translated(f, f.op(Op::OpIAdd, k_.types.u64, {from, i}), 1);
        store_translated(f, f.op(Op::OpIAdd, k_.types.u64, {to, i}), byte, 1);
      },
      f.op(Op::OpUGreaterThan, k_.types.bool_type, {to, from}));
  Id source = translate(f, from, count);
  Id dest = translate(f, to, count);
  Id forward = f.op(Op::OpULessThanEqual, k_.types.bool_type, {dest, source});
  call(f, k_.types.void_type, function_id(Helper::CopyBytes), {dest, source, count, forward});
  f.return_();
  f.finish();
}

// memory.init: the source range must lie in the segment (of size 0 once
// dropped) and the destination in memory, both checked before any byte moves.
// `memory`: the memory it writes (0 but with multi-memory).
void RuntimeHelpers::emit_init(Id id, uint32_t memory) {
  Id params[] = {k_.types.u32, k_.types.u32, k_.types.u32, k_.types.u32, k_.types.u64, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id,
            memory == 0 ? std::string("wasmgpu.memory_init") : "wasmgpu.memory_init.memory" + std::to_string(memory));
  ModuleBuilder& b = k_.b;
  return_if_trapped(f);
  Id count = f.param(2);
  Id count64 = f.op(Op::OpUConvert, k_.types.u64, {count});
  Id state = f.load(k_.types.u64, k_.abi.instance_state_var);
  Id dropped_address = f.op(Op::OpIAdd, k_.types.u64, {state, f.op(Op::OpUConvert, k_.types.u64, {f.param(5)})});
  Id dropped = f.load_aligned(k_.types.u32, k_.device_pointer(f, dropped_address, k_.types.u32), 4);
  Id is_dropped = f.op(Op::OpINotEqual, k_.types.bool_type, {dropped, b.const_u32(0)});
  Id size =
      f.op(Op::OpSelect, k_.types.u64, {is_dropped, b.const_u64(0), f.op(Op::OpUConvert, k_.types.u64, {f.param(3)})});
  Id source = f.op(Op::OpUConvert, k_.types.u64, {f.param(1)});
  Id source_end = f.op(Op::OpIAdd, k_.types.u64, {source, count64});
  f.if_else(f.op(Op::OpUGreaterThan, k_.types.bool_type, {source_end, size}),
            [&] { trap_and_return(f, abi::TrapKind::MemoryOutOfBounds); });
  Id dest = translate_in(f, memory, f.op(Op::OpUConvert, k_.types.u64, {f.param(0)}), count);
  Id segments = f.load_aligned(k_.types.u64, k_.instance_pointer(f, abi::kInstanceDataSegments, k_.types.u64), 8);
  Id from = f.op(Op::OpIAdd, k_.types.u64, {segments, f.op(Op::OpIAdd, k_.types.u64, {f.param(4), source})});
  // Segment bytes and memory never overlap: either direction is right.
  Id forward = b.const_bool(true);
  call(f, k_.types.void_type, function_id(Helper::CopyBytes), {dest, from, count, forward});
  f.return_();
  f.finish();
}

// memory.fill/copy touching shared memory: checks every range first, then
// moves bytes one at a time through the load/store helpers, which handle
// both kinds of memory (backwards when `backwards`, for memmove overlap).
void RuntimeHelpers::shared_bulk(FunctionBuilder& f, std::initializer_list<Id> starts, Id count,
                                 const std::function<void(Id)>& byte, Id backwards) {
  if (!k_.shared.variable) return;
  Id any = k_.b.const_bool(false);
  for (Id start : starts) any = f.op(Op::OpLogicalOr, k_.types.bool_type, {any, shared_overlaps(k_, f, start, count)});
  f.if_else(any, [&] {
    for (Id start : starts) {
      Id end = f.op(Op::OpIAdd, k_.types.u64, {start, f.op(Op::OpUConvert, k_.types.u64, {count})});
      Id in_shared = f.op(Op::OpLogicalAnd, k_.types.bool_type,
                          {f.op(Op::OpUGreaterThanEqual, k_.types.bool_type, {start, k_.b.const_u64(k_.shared.lo)}),
                           f.op(Op::OpULessThanEqual, k_.types.bool_type, {end, k_.b.const_u64(k_.shared.hi)})});
      f.if_else(f.op(Op::OpLogicalNot, k_.types.bool_type, {in_shared}), [&] { translate(f, start, count); });
    }
    Id count64 = f.op(Op::OpUConvert, k_.types.u64, {count});
    if (!backwards) {
      counted_loop(f, count64, byte);
    } else {
      f.if_else(
          backwards, [&] { counted_loop(f, count64, byte, /*backwards=*/true); },
          [&] { counted_loop(f, count64, byte); });
    }
    f.return_();
  });
}

}  // namespace wasmgpu::spirv
