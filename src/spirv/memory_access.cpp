// Linear memory. A wasm access [ea, ea + width) (ea = u64(address) + offset,
// 33 bits, never wrapping) is translated to a device address, then performed
// through a PhysicalStorageBuffer pointer:
//
// 1. The per-invocation stack window [window_lo, stack_hi) (stack_analysis.h)
//    maps to LaunchBlock.stack_base + slot * slot_size + (ea - window_lo),
//    with slot = gl_GlobalInvocationID.x (the runtime sizes the stacks per
//    dispatch). The rest of the module's stack region, [stack_lo, window_lo),
//    traps StackOverflow: the stack outgrew the window. An access that
//    straddles the window's edges traps MemoryOutOfBounds.
// 2. Anything else is looked up in the LaunchBlock's region table (a linear
//    scan); no region containing the whole access traps MemoryOutOfBounds.
//
// The access itself: when the device address is naturally aligned for the
// width, one typed load/store (its Aligned operand is then truthful);
// otherwise loads are assembled from bytes (8-byte loads from two words when
// 4-byte aligned) and stores are written as byte stores. A store never reads
// and rewrites a neighbouring byte: another invocation may own it. wasm
// alignment hints are ignored: they promise nothing. The runtime keeps every
// region's device address congruent to its wasm base modulo 16, so aligned
// wasm addresses give aligned device addresses and take the typed path.
//
// memory.fill and memory.copy check their whole ranges first (wasm traps
// before writing anything), then loop over bytes.
#include "spirv/instance_state.h"
#include "spirv/runtime_helpers.h"

#include "spirv/workgroup_memory.h"

namespace wasmgpu::spirv {

namespace {
using Op = spv::Op;
}

uint32_t RuntimeHelpers::translate(FunctionBuilder& f, uint32_t ea, uint32_t width) {
  uint32_t address = call(f, k_.t_u64, function_id(Helper::Translate), {ea, width});
  return_if_trapped(f);
  return address;
}

uint32_t RuntimeHelpers::load(FunctionBuilder& f, uint32_t ea, uint32_t width) {
  k_.uses_memory = true;
  return call(f, width == 8 ? k_.t_u64 : k_.t_u32, function_id(Helper::Load, width), {ea});
}

void RuntimeHelpers::store(FunctionBuilder& f, uint32_t ea, uint32_t value, uint32_t width) {
  k_.uses_memory = true;
  call(f, k_.t_void, function_id(Helper::Store, width), {ea, value});
}

void RuntimeHelpers::fill(FunctionBuilder& f, uint32_t dest, uint32_t value, uint32_t count) {
  k_.uses_memory = true;
  call(f, k_.t_void, function_id(Helper::Fill), {dest, value, count});
}

void RuntimeHelpers::copy(FunctionBuilder& f, uint32_t dest, uint32_t source, uint32_t count) {
  k_.uses_memory = true;
  call(f, k_.t_void, function_id(Helper::Copy), {dest, source, count});
}

void RuntimeHelpers::memory_init(FunctionBuilder& f, uint32_t dest, uint32_t source, uint32_t count,
                                 uint32_t segment_size, uint64_t segment_offset, uint32_t dropped_offset) {
  k_.uses_memory = true;
  call(f, k_.t_void, function_id(Helper::Init),
       {dest, source, count, k_.b.const_u32(segment_size), k_.b.const_u64(segment_offset),
        k_.b.const_u32(dropped_offset)});
}

void RuntimeHelpers::emit_translate(uint32_t id) {
  uint32_t params[] = {k_.t_u64, k_.t_u32};
  FunctionBuilder f(k_.b, id, k_.t_u64, params);
  k_.b.name(id, "wasmgpu.translate");
  ModuleBuilder& b = k_.b;
  uint32_t ea = f.param(0);
  uint32_t end = f.op(Op::OpIAdd, k_.t_u64, {ea, f.op(Op::OpUConvert, k_.t_u64, {f.param(1)})});
  auto ge = [&](uint32_t x, uint32_t y) { return f.op(Op::OpUGreaterThanEqual, k_.t_bool, {x, y}); };
  auto le = [&](uint32_t x, uint32_t y) { return f.op(Op::OpULessThanEqual, k_.t_bool, {x, y}); };
  auto lt = [&](uint32_t x, uint32_t y) { return f.op(Op::OpULessThan, k_.t_bool, {x, y}); };
  auto both = [&](uint32_t x, uint32_t y) { return f.op(Op::OpLogicalAnd, k_.t_bool, {x, y}); };

  const StackLayout& stack = k_.stack;
  if (stack.slot_size != 0) {
    uint32_t window_lo = b.const_u64(stack.window_lo), stack_hi = b.const_u64(stack.stack_hi);
    uint32_t inside = both(ge(ea, window_lo), le(end, stack_hi));
    f.if_else(inside, [&] {
      uint32_t base = launch_field(f, abi::kLaunchStackBase, 8);
      uint32_t slot = f.op(Op::OpUConvert, k_.t_u64, {f.load(k_.t_u32, k_.stack_slot_var)});
      uint32_t slot_offset = f.op(Op::OpIMul, k_.t_u64, {slot, b.const_u64(k_.stack_slot_size)});
      uint32_t address = f.op(Op::OpIAdd, k_.t_u64, {base, slot_offset});
      address = f.op(Op::OpIAdd, k_.t_u64, {address, f.op(Op::OpISub, k_.t_u64, {ea, window_lo})});
      f.return_value(address);
    });
    // Below the window but inside the stack region: the stack overflowed.
    if (stack.stack_lo < stack.window_lo) {
      uint32_t overflow = both(ge(ea, b.const_u64(stack.stack_lo)), lt(ea, window_lo));
      f.if_else(overflow, [&] { trap_and_return(f, abi::TrapKind::StackOverflow); });
    }
    // Straddling the window's edges.
    uint32_t straddles = both(lt(ea, stack_hi), f.op(Op::OpUGreaterThan, k_.t_bool, {end, window_lo}));
    f.if_else(straddles, [&] { trap_and_return(f, abi::TrapKind::MemoryOutOfBounds); });
  }

  // With instance state, the module memory is bounded by its current size,
  // whatever the region table says (the reserve may be larger).
  if (k_.instance_state && memory_reserve_bytes(k_.module) > 0) {
    uint32_t below_buffers = lt(ea, b.const_u64(abi::kBufferAddressBase));
    f.if_else(below_buffers, [&] {
      uint32_t pages = f.load_aligned(k_.t_u32, k_.instance_pointer(f, abi::kInstanceMemoryPages, k_.t_u32), 4);
      uint32_t size = f.op(Op::OpIMul, k_.t_u64, {f.op(Op::OpUConvert, k_.t_u64, {pages}), b.const_u64(abi::kPageSize)});
      f.if_else(le(end, size), [&] {
        uint32_t memory = f.load_aligned(k_.t_u64, k_.instance_pointer(f, abi::kInstanceMemoryAddress, k_.t_u64), 8);
        f.return_value(f.op(Op::OpIAdd, k_.t_u64, {memory, ea}));
      });
      trap_and_return(f, abi::TrapKind::MemoryOutOfBounds);
    });
  }

  uint32_t count = launch_field(f, abi::kLaunchRegionCount, 4);
  uint32_t regions = f.op(Op::OpUConvert, k_.t_u64, {launch_field(f, abi::kLaunchRegionsOffset, 4)});
  regions = f.op(Op::OpIAdd, k_.t_u64, {f.load(k_.t_u64, k_.launch_block_var), regions});
  counted_loop(f, f.op(Op::OpUConvert, k_.t_u64, {count}), [&](uint32_t i) {
    uint32_t entry = f.op(Op::OpIAdd, k_.t_u64,
                          {regions, f.op(Op::OpIMul, k_.t_u64, {i, b.const_u64(abi::kRegionStride)})});
    auto field = [&](uint32_t offset, uint32_t type, uint32_t width) {
      uint32_t address = f.op(Op::OpIAdd, k_.t_u64, {entry, b.const_u64(offset)});
      return f.load_aligned(type, k_.device_pointer(f, address, type), width);
    };
    uint32_t base = f.op(Op::OpUConvert, k_.t_u64, {field(abi::kRegionWasmBase, k_.t_u32, 4)});
    uint32_t size = f.op(Op::OpUConvert, k_.t_u64, {field(abi::kRegionSize, k_.t_u32, 4)});
    uint32_t inside = both(ge(ea, base), le(end, f.op(Op::OpIAdd, k_.t_u64, {base, size})));
    f.if_else(inside, [&] {
      uint32_t device = field(abi::kRegionDeviceAddress, k_.t_u64, 8);
      f.return_value(f.op(Op::OpIAdd, k_.t_u64, {device, f.op(Op::OpISub, k_.t_u64, {ea, base})}));
    });
  });
  trap_and_return(f, abi::TrapKind::MemoryOutOfBounds);
  f.finish();
}

void RuntimeHelpers::counted_loop(FunctionBuilder& f, uint32_t count,
                                  const std::function<void(uint32_t)>& body, bool backwards) {
  ModuleBuilder& b = k_.b;
  uint32_t counter = f.variable(k_.t_u64);
  f.store(counter, backwards ? count : b.const_u64(0));
  uint32_t header = b.fresh_id(), check = b.fresh_id(), continue_target = b.fresh_id(),
           merge = b.fresh_id();
  f.branch(header);
  f.begin_block(header);
  f.loop_merge(merge, continue_target);
  f.branch(check);
  f.begin_block(check);
  uint32_t i = f.load(k_.t_u64, counter);
  if (backwards) {
    f.if_else(f.op(Op::OpIEqual, k_.t_bool, {i, b.const_u64(0)}), [&] { f.branch(merge); });
    i = f.op(Op::OpISub, k_.t_u64, {i, b.const_u64(1)});
    f.store(counter, i);
  } else {
    f.if_else(f.op(Op::OpUGreaterThanEqual, k_.t_bool, {i, count}), [&] { f.branch(merge); });
  }
  body(i);
  if (f.open()) f.branch(continue_target);
  f.begin_block(continue_target, /*keep_open=*/true);
  if (!backwards)
    f.store(counter, f.op(Op::OpIAdd, k_.t_u64, {f.load(k_.t_u64, counter), b.const_u64(1)}));
  f.branch(header);
  f.begin_block(merge);
}

namespace {
// (address & (alignment - 1)) == 0 for a u64 device address.
uint32_t is_aligned(KernelContext& k, FunctionBuilder& f, uint32_t address, uint32_t alignment) {
  uint32_t low = f.op(Op::OpBitwiseAnd, k.t_u64, {address, k.b.const_u64(alignment - 1)});
  return f.op(Op::OpIEqual, k.t_bool, {low, k.b.const_u64(0)});
}

uint32_t offset_address(KernelContext& k, FunctionBuilder& f, uint32_t address, uint32_t offset) {
  if (offset == 0) return address;
  return f.op(Op::OpIAdd, k.t_u64, {address, k.b.const_u64(offset)});
}
}  // namespace

void RuntimeHelpers::emit_load(uint32_t id, uint32_t width) {
  uint32_t type = width == 8 ? k_.t_u64 : k_.t_u32;
  uint32_t params[] = {k_.t_u64};
  FunctionBuilder f(k_.b, id, type, params);
  k_.b.name(id, "wasmgpu.load" + std::to_string(width * 8));
  shared_access(f, f.param(0), width, [&] { f.return_value(shared_load(k_, f, f.param(0), width)); });
  uint32_t address = translate(f, f.param(0), k_.b.const_u32(width));
  if (width == 4 || width == 8) {
    f.if_else(is_aligned(k_, f, address, width), [&] {
      f.return_value(f.load_aligned(type, k_.device_pointer(f, address, type), width));
    });
  }
  if (width == 8) {
    f.if_else(is_aligned(k_, f, address, 4), [&] {
      uint32_t low = f.load_aligned(k_.t_u32, k_.device_pointer(f, address, k_.t_u32), 4);
      uint32_t high = f.load_aligned(k_.t_u32, k_.device_pointer(f, offset_address(k_, f, address, 4), k_.t_u32), 4);
      low = f.op(Op::OpUConvert, k_.t_u64, {low});
      high = f.op(Op::OpShiftLeftLogical, k_.t_u64, {f.op(Op::OpUConvert, k_.t_u64, {high}), k_.b.const_u32(32)});
      f.return_value(f.op(Op::OpBitwiseOr, k_.t_u64, {low, high}));
    });
  }
  uint32_t value = 0;
  for (uint32_t i = 0; i < width; ++i) {
    uint32_t byte_ptr = k_.device_pointer(f, offset_address(k_, f, address, i), k_.t_u8());
    uint32_t byte = f.op(Op::OpUConvert, type, {f.load_aligned(k_.t_u8(), byte_ptr, 1)});
    if (i != 0) byte = f.op(Op::OpShiftLeftLogical, type, {byte, k_.b.const_u32(8 * i)});
    value = i == 0 ? byte : f.op(Op::OpBitwiseOr, type, {value, byte});
  }
  f.return_value(value);
  f.finish();
}

void RuntimeHelpers::emit_store(uint32_t id, uint32_t width) {
  uint32_t type = width == 8 ? k_.t_u64 : k_.t_u32;
  uint32_t params[] = {k_.t_u64, type};
  FunctionBuilder f(k_.b, id, k_.t_void, params);
  k_.b.name(id, "wasmgpu.store" + std::to_string(width * 8));
  return_if_trapped(f);  // a trapped invocation writes nothing more
  uint32_t value = f.param(1);
  shared_access(f, f.param(0), width, [&] {
    shared_store(k_, f, f.param(0), value, width);
    f.return_();
  });
  uint32_t address = translate(f, f.param(0), k_.b.const_u32(width));
  if (width == 4 || width == 8) {
    f.if_else(is_aligned(k_, f, address, width), [&] {
      f.store_aligned(k_.device_pointer(f, address, type), value, width);
      f.return_();
    });
  }
  if (width == 8) {
    f.if_else(is_aligned(k_, f, address, 4), [&] {
      uint32_t low = f.op(Op::OpUConvert, k_.t_u32, {value});
      uint32_t high = f.op(Op::OpUConvert, k_.t_u32, {f.op(Op::OpShiftRightLogical, k_.t_u64, {value, k_.b.const_u32(32)})});
      f.store_aligned(k_.device_pointer(f, address, k_.t_u32), low, 4);
      f.store_aligned(k_.device_pointer(f, offset_address(k_, f, address, 4), k_.t_u32), high, 4);
      f.return_();
    });
  }
  for (uint32_t i = 0; i < width; ++i) {
    uint32_t shifted = i == 0 ? value : f.op(Op::OpShiftRightLogical, type, {value, k_.b.const_u32(8 * i)});
    uint32_t byte = f.op(Op::OpUConvert, k_.t_u8(), {shifted});
    f.store_aligned(k_.device_pointer(f, offset_address(k_, f, address, i), k_.t_u8()), byte, 1);
  }
  f.return_();
  f.finish();
}

void RuntimeHelpers::emit_fill(uint32_t id) {
  uint32_t params[] = {k_.t_u32, k_.t_u32, k_.t_u32};
  FunctionBuilder f(k_.b, id, k_.t_void, params);
  k_.b.name(id, "wasmgpu.memory_fill");
  return_if_trapped(f);
  uint32_t dest = f.op(Op::OpUConvert, k_.t_u64, {f.param(0)});
  uint32_t byte = f.op(Op::OpUConvert, k_.t_u8(), {f.param(1)});
  uint32_t count = f.param(2);
  shared_bulk(f, {dest}, count, [&](uint32_t i) {
    store(f, f.op(Op::OpIAdd, k_.t_u64, {dest, i}), f.param(1), 1);
  });
  uint32_t address = translate(f, dest, count);
  counted_loop(f, f.op(Op::OpUConvert, k_.t_u64, {count}), [&](uint32_t i) {
    uint32_t pointer = k_.device_pointer(f, f.op(Op::OpIAdd, k_.t_u64, {address, i}), k_.t_u8());
    f.store_aligned(pointer, byte, 1);
  });
  f.return_();
  f.finish();
}

void RuntimeHelpers::emit_copy(uint32_t id) {
  uint32_t params[] = {k_.t_u32, k_.t_u32, k_.t_u32};
  FunctionBuilder f(k_.b, id, k_.t_void, params);
  k_.b.name(id, "wasmgpu.memory_copy");
  return_if_trapped(f);
  uint32_t count = f.param(2);
  uint32_t count64 = f.op(Op::OpUConvert, k_.t_u64, {count});
  {
    uint32_t from = f.op(Op::OpUConvert, k_.t_u64, {f.param(1)}), to = f.op(Op::OpUConvert, k_.t_u64, {f.param(0)});
    shared_bulk(f, {to, from}, count, [&](uint32_t i) {
      uint32_t byte = load(f, f.op(Op::OpIAdd, k_.t_u64, {from, i}), 1);
      store(f, f.op(Op::OpIAdd, k_.t_u64, {to, i}), byte, 1);
    }, f.op(Op::OpUGreaterThan, k_.t_bool, {to, from}));
  }
  uint32_t source = translate(f, f.op(Op::OpUConvert, k_.t_u64, {f.param(1)}), count);
  uint32_t dest = translate(f, f.op(Op::OpUConvert, k_.t_u64, {f.param(0)}), count);
  // Overlapping ranges lie in one region, whose device bytes are in wasm
  // order: copying forwards when dest <= source (else backwards) is memmove.
  auto copy_byte = [&](uint32_t i) {
    uint32_t from = k_.device_pointer(f, f.op(Op::OpIAdd, k_.t_u64, {source, i}), k_.t_u8());
    uint32_t to = k_.device_pointer(f, f.op(Op::OpIAdd, k_.t_u64, {dest, i}), k_.t_u8());
    f.store_aligned(to, f.load_aligned(k_.t_u8(), from, 1), 1);
  };
  f.if_else(f.op(Op::OpULessThanEqual, k_.t_bool, {dest, source}),
            [&] { counted_loop(f, count64, copy_byte); },
            [&] { counted_loop(f, count64, copy_byte, /*backwards=*/true); });
  f.return_();
  f.finish();
}

// memory.init: the source range must lie in the segment (of size 0 once
// dropped) and the destination in memory, both checked before any byte moves.
void RuntimeHelpers::emit_init(uint32_t id) {
  uint32_t params[] = {k_.t_u32, k_.t_u32, k_.t_u32, k_.t_u32, k_.t_u64, k_.t_u32};
  FunctionBuilder f(k_.b, id, k_.t_void, params);
  k_.b.name(id, "wasmgpu.memory_init");
  ModuleBuilder& b = k_.b;
  return_if_trapped(f);
  uint32_t count = f.param(2);
  uint32_t count64 = f.op(Op::OpUConvert, k_.t_u64, {count});
  uint32_t state = f.load(k_.t_u64, k_.instance_state_var);
  uint32_t dropped_address = f.op(Op::OpIAdd, k_.t_u64, {state, f.op(Op::OpUConvert, k_.t_u64, {f.param(5)})});
  uint32_t dropped = f.load_aligned(k_.t_u32, k_.device_pointer(f, dropped_address, k_.t_u32), 4);
  uint32_t is_dropped = f.op(Op::OpINotEqual, k_.t_bool, {dropped, b.const_u32(0)});
  uint32_t size = f.op(Op::OpSelect, k_.t_u64, {is_dropped, b.const_u64(0), f.op(Op::OpUConvert, k_.t_u64, {f.param(3)})});
  uint32_t source = f.op(Op::OpUConvert, k_.t_u64, {f.param(1)});
  uint32_t source_end = f.op(Op::OpIAdd, k_.t_u64, {source, count64});
  f.if_else(f.op(Op::OpUGreaterThan, k_.t_bool, {source_end, size}),
            [&] { trap_and_return(f, abi::TrapKind::MemoryOutOfBounds); });
  uint32_t dest = translate(f, f.op(Op::OpUConvert, k_.t_u64, {f.param(0)}), count);
  uint32_t segments = f.load_aligned(k_.t_u64, k_.instance_pointer(f, abi::kInstanceDataSegments, k_.t_u64), 8);
  uint32_t from = f.op(Op::OpIAdd, k_.t_u64, {segments, f.op(Op::OpIAdd, k_.t_u64, {f.param(4), source})});
  counted_loop(f, count64, [&](uint32_t i) {
    uint32_t byte = f.load_aligned(k_.t_u8(), k_.device_pointer(f, f.op(Op::OpIAdd, k_.t_u64, {from, i}), k_.t_u8()), 1);
    f.store_aligned(k_.device_pointer(f, f.op(Op::OpIAdd, k_.t_u64, {dest, i}), k_.t_u8()), byte, 1);
  });
  f.return_();
  f.finish();
}

// Workgroup-shared memory (workgroup_memory.h): an access inside the shared
// range runs `inside` (which must return); one straddling its edge traps.
void RuntimeHelpers::shared_access(FunctionBuilder& f, uint32_t ea, uint32_t width,
                                   const std::function<void()>& inside) {
  if (k_.shared.variable == 0) return;
  f.if_else(shared_contains(k_, f, ea, width), inside);
  f.if_else(shared_overlaps(k_, f, ea, k_.b.const_u32(width)),
            [&] { trap_and_return(f, abi::TrapKind::MemoryOutOfBounds); });
}

// memory.fill/copy touching shared memory: checks every range first, then
// moves bytes one at a time through the load/store helpers, which handle
// both kinds of memory (backwards when `backwards`, for memmove overlap).
void RuntimeHelpers::shared_bulk(FunctionBuilder& f, std::initializer_list<uint32_t> starts, uint32_t count,
                                 const std::function<void(uint32_t)>& byte, uint32_t backwards) {
  if (k_.shared.variable == 0) return;
  uint32_t any = k_.b.const_bool(false);
  for (uint32_t start : starts)
    any = f.op(Op::OpLogicalOr, k_.t_bool, {any, shared_overlaps(k_, f, start, count)});
  f.if_else(any, [&] {
    for (uint32_t start : starts) {
      uint32_t end = f.op(Op::OpIAdd, k_.t_u64, {start, f.op(Op::OpUConvert, k_.t_u64, {count})});
      uint32_t in_shared = f.op(Op::OpLogicalAnd, k_.t_bool,
                                {f.op(Op::OpUGreaterThanEqual, k_.t_bool, {start, k_.b.const_u64(k_.shared.lo)}),
                                 f.op(Op::OpULessThanEqual, k_.t_bool, {end, k_.b.const_u64(k_.shared.hi)})});
      f.if_else(f.op(Op::OpLogicalNot, k_.t_bool, {in_shared}), [&] { translate(f, start, count); });
    }
    uint32_t count64 = f.op(Op::OpUConvert, k_.t_u64, {count});
    if (backwards == 0) {
      counted_loop(f, count64, byte);
    } else {
      f.if_else(backwards, [&] { counted_loop(f, count64, byte, /*backwards=*/true); },
                [&] { counted_loop(f, count64, byte); });
    }
    f.return_();
  });
}

}  // namespace wasmgpu::spirv
