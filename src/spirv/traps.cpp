// Traps. A trapping invocation records the trap in the launch's TrapRecord
// (atomically: trapped_count += 1, lowest_index[kind] = min(., index)) and
// sets its Private `trapped` flag. It then winds down without effects: memory
// writes check the flag, loops leave at their back-edge once it is set, and
// only the first trap of an invocation is recorded. Other invocations are
// unaffected. (runtime_helpers.h says why traps do not return early.)
#include "spirv/runtime_helpers.h"

namespace wasmgpu::spirv {

Id RuntimeHelpers::function_id(Helper helper, uint32_t width) {
  Key key{helper, width};
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  Id id = k_.b.fresh_id();
  ids_.emplace(key, id);
  emitted_.emplace(key, false);
  return id;
}

Id RuntimeHelpers::call(FunctionBuilder& f, Id result_type, Id function, std::initializer_list<Id> args) {
  return f.call(result_type, function, args);
}

void RuntimeHelpers::trap(FunctionBuilder& f, abi::TrapKind kind, std::optional<TrappedAccess> access) {
  Id trap_kind = k_.b.const_u32(uint32_t(kind));
  if (!k_.trap_sites) {
    call(f, k_.types.void_type, function_id(Helper::Trap), {trap_kind});
    return;
  }
  // Under trap sites the access travels as arguments, not through a Private
  // variable the caller would set: the report then cannot depend on how a
  // driver orders Private stores around a call.
  Id address = access ? access->address : k_.b.const_u64(abi::kNoTrapAddress);
  Id bytes = access ? access->bytes : k_.b.const_u32(0);
  call(f, k_.types.void_type, function_id(Helper::Trap), {trap_kind, address, bytes});
}

std::optional<RuntimeHelpers::TrappedAccess> RuntimeHelpers::trapped_access(Id ea, Id bytes) const {
  if (!k_.trap_sites) return std::nullopt;
  return TrappedAccess{ea, bytes};
}

std::optional<RuntimeHelpers::TrappedAccess> RuntimeHelpers::trapped_access(Id ea, uint32_t width) {
  if (!k_.trap_sites) return std::nullopt;
  return TrappedAccess{ea, k_.b.const_u32(width)};
}

void RuntimeHelpers::trap_and_return(FunctionBuilder& f, abi::TrapKind kind, std::optional<TrappedAccess> access) {
  trap(f, kind, access);
  f.return_default();
}

Id RuntimeHelpers::trapped(FunctionBuilder& f) { return f.load(k_.types.bool_type, k_.abi.trapped_var); }

void RuntimeHelpers::return_if_trapped(FunctionBuilder& f) {
  Id trapped = f.load(k_.types.bool_type, k_.abi.trapped_var);
  f.if_else(trapped, [&] { f.return_default(); });
}

Id RuntimeHelpers::launch_field(FunctionBuilder& f, uint32_t offset, uint32_t width) {
  Id block = f.load(k_.types.u64, k_.abi.launch_block_var);
  Id address = f.op(spv::Op::OpIAdd, k_.types.u64, {block, k_.b.const_u64(offset)});
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  return f.load_aligned(type, k_.device_pointer(f, address, type), width);
}

Id RuntimeHelpers::host_clock(FunctionBuilder& f, Id monotonic) {
  Id record = launch_field(f, abi::kLaunchTrapRecord, 8);
  Id offset = f.op(spv::Op::OpSelect, k_.types.u64,
                   {monotonic, k_.b.const_u64(abi::kHostClockMonotonic), k_.b.const_u64(abi::kHostClockRealtime)});
  Id address = f.op(spv::Op::OpIAdd, k_.types.u64, {record, offset});
  return f.load_aligned(k_.types.u64, k_.device_pointer(f, address, k_.types.u64), 8);
}

void RuntimeHelpers::emit_trap(Id id) {
  std::vector<Id> params = {k_.types.u32};
  if (k_.trap_sites) params.insert(params.end(), {k_.types.u64, k_.types.u32});  // the access: address, bytes
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.trap");
  Id kind = f.param(0);
  return_if_trapped(f);  // only the first trap of an invocation counts
  f.store(k_.abi.trap_kind_var, kind);
  Id record = launch_field(f, abi::kLaunchTrapRecord, 8);
  Id device_scope = k_.b.const_u32(uint32_t(spv::Scope::Device));
  Id relaxed = k_.b.const_u32(0);
  Id count_ptr = k_.device_pointer(f, record, k_.types.u32);
  f.op(spv::Op::OpAtomicIAdd, k_.types.u32, {count_ptr, device_scope, relaxed, k_.b.const_u32(1)});
  Id kind_offset = f.op(spv::Op::OpIMul, k_.types.u32, {kind, k_.b.const_u32(4)});
  kind_offset = f.op(spv::Op::OpIAdd, k_.types.u32, {kind_offset, k_.b.const_u32(abi::kTrapLowestIndex)});
  Id lowest_address =
      f.op(spv::Op::OpIAdd, k_.types.u64, {record, f.op(spv::Op::OpUConvert, k_.types.u64, {kind_offset})});
  Id index = f.load(k_.types.u32, k_.abi.invocation_index_var);
  f.op(spv::Op::OpAtomicUMin, k_.types.u32,
       {k_.device_pointer(f, lowest_address, k_.types.u32), device_scope, relaxed, index});
  if (k_.trap_sites) {
    // Kept for the call shader, which reports each call's own first trap.
    Id site = f.load(k_.types.u32, k_.abi.trap_site_var);
    f.store(k_.abi.trapped_site_var, site);
    f.store(k_.abi.trapped_address_var, f.param(1));
    f.store(k_.abi.trapped_bytes_var, f.param(2));
    // The first invocation to claim the site words writes them; plain
    // stores after the claim suffice, since the host reads the record only
    // after the launch finished.
    auto field = [&](uint32_t offset) {
      Id address = f.op(spv::Op::OpIAdd, k_.types.u64, {record, k_.b.const_u64(offset)});
      return k_.device_pointer(f, address, k_.types.u32);
    };
    Id previous =
        f.op(spv::Op::OpAtomicCompareExchange, k_.types.u32,
             {field(abi::kTrapSiteClaimed), device_scope, relaxed, relaxed, k_.b.const_u32(1), k_.b.const_u32(0)});
    Id won = f.op(spv::Op::OpIEqual, k_.types.bool_type, {previous, k_.b.const_u32(0)});
    f.if_else(won, [&] {
      f.store_aligned(field(abi::kTrapSiteOffset), site, 4);
      f.store_aligned(field(abi::kTrapSiteInvocation), index, 4);
      Id address = f.param(1);
      f.store_aligned(field(abi::kTrapSiteAddressLow), f.op(spv::Op::OpUConvert, k_.types.u32, {address}), 4);
      Id high = f.op(spv::Op::OpShiftRightLogical, k_.types.u64, {address, k_.b.const_u64(32)});
      f.store_aligned(field(abi::kTrapSiteAddressHigh), f.op(spv::Op::OpUConvert, k_.types.u32, {high}), 4);
      f.store_aligned(field(abi::kTrapSiteAccessBytes), f.param(2), 4);
    });
  }
  f.store(k_.abi.trapped_var, k_.b.const_bool(true));
  f.return_();
  f.finish();
}

void RuntimeHelpers::emit_bodies() {
  for (bool again = true; again;) {
    again = false;
    for (auto& [key, done] : emitted_) {
      if (done) continue;
      done = true;
      again = true;
      Id id = ids_.at(key);
      switch (key.helper) {
        case Helper::Trap: emit_trap(id); break;
        case Helper::Translate: emit_translate(id); break;
        case Helper::Load: emit_load(id, key.width); break;
        case Helper::Store: emit_store(id, key.width); break;
        case Helper::LoadDevice: emit_load_device(id, key.width); break;
        case Helper::StoreDevice: emit_store_device(id, key.width); break;
        case Helper::Fill: emit_fill(id); break;
        case Helper::Copy: emit_copy(id); break;
        case Helper::Init: emit_init(id, key.width); break;
        case Helper::FillBytes: emit_fill_bytes(id); break;
        case Helper::CopyBytes: emit_copy_bytes(id); break;
        case Helper::TableMove: emit_table_move(id); break;
        case Helper::TableFill: emit_table_fill(id); break;
        case Helper::MemoryLoad: emit_memory_load(id, key.width); break;
        case Helper::MemoryStore: emit_memory_store(id, key.width); break;
        case Helper::MemoryFill: emit_memory_fill(id, key.width); break;
        case Helper::MemoryCopy: emit_memory_copy(id, key.width); break;
      }
      break;  // emitting may have added entries: restart the walk
    }
  }
}

}  // namespace wasmgpu::spirv
