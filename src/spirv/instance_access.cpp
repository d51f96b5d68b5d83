// Instructions that read or write the module instance's state: globals that
// live in the InstanceState (imported ones, those initialised from an imported
// one, and mutable ones other than the private shadow stack pointer), memory.size/grow on the current size, and
// memory.init/data.drop on the data segments (abi/launch_abi.h). A trapped
// invocation writes none of it (traps.cpp).
#include "abi/launch_abi.h"
#include "spirv/function_lowering.h"
#include "frontend/instance_state.h"

namespace wasmgpu::spirv {

using wasm::ValType;
using Op = spv::Op;

bool FunctionLowering::global_in_instance(uint32_t global_index) const {
  if (!k_.instance_state) return false;
  if (global_index < k_.module.imported_globals) return true;
  // An initialiser that reads an imported global is known only at
  // instantiation, when initial_instance_state() writes its slot.
  const wasm::ConstExpr& init = k_.module.globals[global_index - k_.module.imported_globals].init;
  if (!init.instrs.empty() && init.instrs[0].op == wasm::Opcode::GlobalGet) return true;
  return k_.module.global_type(global_index).is_mutable && k_.stack.stack_pointer != global_index;
}

Status FunctionLowering::global_get(uint32_t global_index) {
  ValType type = k_.module.global_type(global_index).type;
  if (!global_in_instance(global_index)) {
    WASMGPU_ASSIGN_OR_RETURN(Id var, global_var(global_index));
    push(f_.load(type_of(type), var));
    return {};
  }
  if (type == ValType::V128) {
    const uint32_t offset = instance_layout(k_.module).v128_globals_offset + 16 * global_index;
    Id pointer = k_.instance_pointer(f_, offset, k_.types.v128());
    push(f_.load_aligned(k_.types.v128(), pointer, 8));
    return {};
  }
  bool wide = type == ValType::I64 || type == ValType::F64;
  Id raw_type = wide ? k_.types.u64 : k_.types.u32;
  uint32_t offset = abi::kInstanceGlobals + abi::kInstanceGlobalSlotSize * global_index;
  Id raw = f_.load_aligned(raw_type, k_.instance_pointer(f_, offset, raw_type), wide ? 8 : 4);
  Id value_type = type_of(type);
  push(value_type == raw_type ? raw : op(Op::OpBitcast, value_type, {raw}));
  return {};
}

Status FunctionLowering::global_set(uint32_t global_index) {
  ValType type = k_.module.global_type(global_index).type;
  Id value = pop();
  if (!global_in_instance(global_index)) {
    WASMGPU_ASSIGN_OR_RETURN(Id var, global_var(global_index));
    f_.store(var, value);
    return {};
  }
  if (type == ValType::V128) {
    const uint32_t offset = instance_layout(k_.module).v128_globals_offset + 16 * global_index;
    f_.if_else(op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)}),
               [&] { f_.store_aligned(k_.instance_pointer(f_, offset, k_.types.v128()), value, 8); });
    return {};
  }
  bool wide = type == ValType::I64 || type == ValType::F64;
  Id raw_type = wide ? k_.types.u64 : k_.types.u32;
  if (type == ValType::F32 || type == ValType::F64) value = op(Op::OpBitcast, raw_type, {value});
  uint32_t offset = abi::kInstanceGlobals + abi::kInstanceGlobalSlotSize * global_index;
  f_.if_else(op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)}),
             [&] { f_.store_aligned(k_.instance_pointer(f_, offset, raw_type), value, wide ? 8 : 4); });
  return {};
}

// Where memory `memory`'s size and grow limit live: the InstanceState's
// header for memory 0, its ExtraMemory record for the others.
static std::pair<uint32_t, uint32_t> size_fields(const RuntimeHelpers& helpers, uint32_t memory) {
  if (memory == 0) return {abi::kInstanceMemoryPages, abi::kInstanceMemoryLimitPages};
  const uint32_t record = helpers.extra_memory_record(memory);
  return {record + abi::kExtraMemoryPages, record + abi::kExtraMemoryLimitPages};
}

void FunctionLowering::memory_size(uint32_t memory) {
  if (!k_.instance_state) {  // one memory, of fixed size
    push(b_.const_u32(memory_pages()));
    return;
  }
  const uint32_t pages = size_fields(*k_.helpers, memory).first;
  push(f_.load_aligned(k_.types.u32, k_.instance_pointer(f_, pages, k_.types.u32), 4));
}

void FunctionLowering::memory_grow(uint32_t memory) {
  // Succeeds when the new size fits the limit (declared max and reserve):
  // the reserve is allocated up front, so growing only moves the size.
  const auto [pages_offset, limit_offset] = size_fields(*k_.helpers, memory);
  Id delta = op(Op::OpUConvert, k_.types.u64, {pop()});
  Id pages_pointer = k_.instance_pointer(f_, pages_offset, k_.types.u32);
  Id old_pages = f_.load_aligned(k_.types.u32, pages_pointer, 4);
  Id limit = f_.load_aligned(k_.types.u32, k_.instance_pointer(f_, limit_offset, k_.types.u32), 4);
  Id new_pages = op(Op::OpIAdd, k_.types.u64, {op(Op::OpUConvert, k_.types.u64, {old_pages}), delta});
  Id fits = op(Op::OpULessThanEqual, k_.types.bool_type, {new_pages, op(Op::OpUConvert, k_.types.u64, {limit})});
  Id ok = op(Op::OpLogicalAnd, k_.types.bool_type,
             {fits, op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)})});
  f_.if_else(ok, [&] {
    Id pointer = k_.instance_pointer(f_, pages_offset, k_.types.u32);
    f_.store_aligned(pointer, op(Op::OpUConvert, k_.types.u32, {new_pages}), 4);
  });
  push(op(Op::OpSelect, k_.types.u32, {ok, old_pages, b_.const_u32(0xFFFF'FFFFu)}));
}

Status FunctionLowering::memory_init(uint32_t segment, uint32_t memory) {
  if (!k_.instance_state || segment >= k_.module.data.size())
    return make_error(ErrorCode::Validation, "function " + k_.module.function_name(index_) +
                                                 " uses memory.init of data segment " + std::to_string(segment) +
                                                 ", which does not exist");
  const InstanceLayout& layout = k_.layout;
  Id count = pop(), source = pop(), dest = pop();
  k_.helpers->memory_init_in(f_, memory, dest, source, count, uint32_t(k_.module.data[segment].bytes.size()),
                             layout.data_offsets[segment], layout.data_dropped_offset + 4 * segment);
  return {};
}

Status FunctionLowering::data_drop(uint32_t segment) {
  if (!k_.instance_state || segment >= k_.module.data.size())
    return make_error(ErrorCode::Validation, "function " + k_.module.function_name(index_) +
                                                 " uses data.drop of data segment " + std::to_string(segment) +
                                                 ", which does not exist");
  uint32_t offset = k_.layout.data_dropped_offset + 4 * segment;
  f_.if_else(op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f_)}), [&] {
    Id dropped = b_.const_u32(1);
    f_.store_aligned(k_.instance_pointer(f_, offset, k_.types.u32), dropped, 4);
  });
  return {};
}

}  // namespace wasmgpu::spirv
