// Memories after the first (multi-memory; frontend/memories.h). Memory 0
// keeps every path of memory_access.cpp; memory k >= 1 lives outside the
// wasm address space of a launch, in a buffer of its own, so its accesses
// need none of the translation: each is a helper that checks [ea, ea + width)
// against memory k's current size (its InstanceState record, which
// memory.grow moves) and touches memory k's device bytes, or traps "out of
// bounds memory access" without touching anything. Memory k's device address
// is 64 KiB aligned, so aligned wasm addresses take one typed access.
#include "frontend/instance_state.h"
#include "spirv/runtime_helpers.h"

namespace wasmgpu::spirv {

namespace {
using Op = spv::Op;
}

uint32_t RuntimeHelpers::extra_memory_record(uint32_t memory) const {
  return k_.layout.memories_offset + abi::kExtraMemoryRecordSize * (memory - 1);
}

Id RuntimeHelpers::translate_in(FunctionBuilder& f, uint32_t memory, Id ea, Id size) {
  if (memory == 0) return translate(f, ea, size);
  const uint32_t record = extra_memory_record(memory);
  Id pages = f.load_aligned(k_.types.u32, k_.instance_pointer(f, record + abi::kExtraMemoryPages, k_.types.u32), 4);
  Id bytes =
      f.op(Op::OpIMul, k_.types.u64, {f.op(Op::OpUConvert, k_.types.u64, {pages}), k_.b.const_u64(abi::kPageSize)});
  Id end = f.op(Op::OpIAdd, k_.types.u64, {ea, f.op(Op::OpUConvert, k_.types.u64, {size})});
  f.if_else(f.op(Op::OpUGreaterThan, k_.types.bool_type, {end, bytes}),
            [&] { trap_and_return(f, abi::TrapKind::MemoryOutOfBounds, trapped_access(ea, size)); });
  Id base = f.load_aligned(k_.types.u64, k_.instance_pointer(f, record + abi::kExtraMemoryAddress, k_.types.u64), 8);
  return f.op(Op::OpIAdd, k_.types.u64, {base, ea});
}

Id RuntimeHelpers::memory_load(FunctionBuilder& f, uint32_t memory, Id ea, uint32_t width) {
  k_.uses_memory = true;
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  return call(f, type, function_id(Helper::MemoryLoad, memory << 4 | width), {ea});
}

void RuntimeHelpers::memory_store(FunctionBuilder& f, uint32_t memory, Id ea, Id value, uint32_t width) {
  k_.uses_memory = true;
  call(f, k_.types.void_type, function_id(Helper::MemoryStore, memory << 4 | width), {ea, value});
}

void RuntimeHelpers::memory_fill_in(FunctionBuilder& f, uint32_t memory, Id dest, Id value, Id count) {
  k_.uses_memory = true;
  call(f, k_.types.void_type, function_id(Helper::MemoryFill, memory), {dest, value, count});
}

void RuntimeHelpers::memory_copy_between(FunctionBuilder& f, uint32_t dest_memory, uint32_t source_memory, Id dest,
                                         Id source, Id count) {
  k_.uses_memory = true;
  call(f, k_.types.void_type, function_id(Helper::MemoryCopy, dest_memory << 16 | source_memory),
       {dest, source, count});
}

void RuntimeHelpers::memory_init_in(FunctionBuilder& f, uint32_t memory, Id dest, Id source, Id count,
                                    uint32_t segment_size, uint64_t segment_offset, uint32_t dropped_offset) {
  if (memory == 0) return memory_init(f, dest, source, count, segment_size, segment_offset, dropped_offset);
  k_.uses_memory = true;
  Id size = k_.b.const_u32(segment_size);
  Id offset = k_.b.const_u64(segment_offset);
  Id dropped = k_.b.const_u32(dropped_offset);
  call(f, k_.types.void_type, function_id(Helper::Init, memory), {dest, source, count, size, offset, dropped});
}

void RuntimeHelpers::emit_memory_load(Id id, uint32_t key) {
  const uint32_t memory = key >> 4, width = key & 15;
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  Id params[] = {k_.types.u64};
  FunctionBuilder f(k_.b, id, type, params);
  k_.b.name(id, "wasmgpu.load" + std::to_string(width * 8) + ".memory" + std::to_string(memory));
  return_load_by_alignment(f, translate_in(f, memory, f.param(0), k_.b.const_u32(width)), width);
  f.finish();
}

void RuntimeHelpers::emit_memory_store(Id id, uint32_t key) {
  const uint32_t memory = key >> 4, width = key & 15;
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  Id params[] = {k_.types.u64, type};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.store" + std::to_string(width * 8) + ".memory" + std::to_string(memory));
  return_if_trapped(f);  // a trapped invocation writes nothing more
  Id address = translate_in(f, memory, f.param(0), k_.b.const_u32(width));
  store_by_alignment_and_return(f, address, f.param(1), width);
  f.finish();
}

void RuntimeHelpers::emit_memory_fill(Id id, uint32_t memory) {
  Id params[] = {k_.types.u32, k_.types.u32, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.memory_fill.memory" + std::to_string(memory));
  return_if_trapped(f);
  Id count = f.param(2);
  Id address = translate_in(f, memory, f.op(Op::OpUConvert, k_.types.u64, {f.param(0)}), count);
  Id byte = f.op(Op::OpUConvert, k_.types.u8(), {f.param(1)});
  call(f, k_.types.void_type, function_id(Helper::FillBytes), {address, byte, count});
  f.return_();
  f.finish();
}

// Both ranges are checked (translated) before any byte moves. Ranges in two
// memories never overlap; within one memory the direction makes it memmove.
void RuntimeHelpers::emit_memory_copy(Id id, uint32_t key) {
  const uint32_t dest_memory = key >> 16, source_memory = key & 0xFFFF;
  Id params[] = {k_.types.u32, k_.types.u32, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.memory_copy.memory" + std::to_string(dest_memory) + ".memory" + std::to_string(source_memory));
  return_if_trapped(f);
  Id count = f.param(2);
  Id from = f.op(Op::OpUConvert, k_.types.u64, {f.param(1)}), to = f.op(Op::OpUConvert, k_.types.u64, {f.param(0)});
  Id source = translate_in(f, source_memory, from, count);
  Id dest = translate_in(f, dest_memory, to, count);
  Id forward = dest_memory == source_memory ? f.op(Op::OpULessThanEqual, k_.types.bool_type, {dest, source})
                                            : k_.b.const_bool(true);
  call(f, k_.types.void_type, function_id(Helper::CopyBytes), {dest, source, count, forward});
  f.return_();
  f.finish();
}

}  // namespace wasmgpu::spirv
