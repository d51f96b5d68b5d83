// Linear memory loads and stores. A wasm access [ea, ea + width) (ea =
// u64(address) + offset, 33 bits, never wrapping) takes one of three paths
// (access_path.h), chosen at compile time:
//
// - Direct: ea is a constant whose range lies in the module memory's initial
//   size, outside the stack and shared ranges. One access at memory_base + ea
//   (memory_base: the module memory's device address, set by `main`), whose
//   alignment is known, so it is one typed load/store or a fixed split.
// - BoundsChecked: a constant ea below kBufferAddressBase that may lie past
//   the initial size: compared with the current size, then as Direct.
// - Translated: the translate helper, which at run time tries in order:
//   1. The per-invocation stack window [window_lo, stack_hi) (stack_analysis.h)
//      maps to LaunchBlock.stack_base + slot * slot_size + (ea - window_lo),
//      with slot = gl_GlobalInvocationID.x (the runtime sizes the stacks per
//      dispatch). The rest of the module's stack region, [stack_lo,
//      window_lo), traps StackOverflow: the stack outgrew the window. An
//      access that straddles the window's edges traps MemoryOutOfBounds.
//   2. Below kBufferAddressBase only the module memory is mapped (the ABI's
//      layout): the access must end within its current size, else it traps.
//   3. Anything else is looked up in the LaunchBlock's region table (a linear
//      scan over the buffers); no region containing the whole access traps.
//   (Workgroup-shared addresses are caught before translation.)
// - Parameter / ParameterUnaligned: in the kernel function, an address that
//   pointer_provenance.h proves to be `pointer parameter + rest` is first
//   tried against the buffer the runtime found that argument pointing into
//   (the LaunchBlock's ParamRegions): one compare, then the device access,
//   typed when the alignment of rest is proven; Translated when it fails.
// - Indexed / IndexedUnaligned: an address that is a number computed at run
//   time is tried against the shared range, then against the largest piece
//   of the initial module memory outside the stack and shared ranges; else
//   Translated.
//
// The device access itself: when the device address is naturally aligned for
// the width, one typed load/store (its Aligned operand is then truthful);
// otherwise loads are assembled from bytes (8-byte loads from two words when
// 4-byte aligned) and stores are written as byte stores. A store never reads
// and rewrites a neighbouring byte: another invocation may own it. wasm
// alignment hints are ignored: they promise nothing. The runtime keeps every
// region's device address congruent to its wasm base modulo 16, so aligned
// wasm addresses give aligned device addresses and take the typed path.
#include <algorithm>
#include <bit>

#include "frontend/instance_state.h"
#include "spirv/runtime_helpers.h"
#include "spirv/workgroup_memory.h"

namespace wasmgpu::spirv {

namespace {
using Op = spv::Op;

// Device alignment of module-memory address `ea` (memory_base is 16-aligned).
uint32_t constant_alignment(uint64_t ea) { return ea % 16 == 0 ? 16 : uint32_t(uint64_t(1) << std::countr_zero(ea)); }

// (address & (alignment - 1)) == 0 for a u64 device address.
Id is_aligned(KernelContext& k, FunctionBuilder& f, Id address, uint32_t alignment) {
  Id low = f.op(Op::OpBitwiseAnd, k.types.u64, {address, k.b.const_u64(alignment - 1)});
  return f.op(Op::OpIEqual, k.types.bool_type, {low, k.b.const_u64(0)});
}

Id offset_address(KernelContext& k, FunctionBuilder& f, Id address, uint32_t offset) {
  if (offset == 0) return address;
  return f.op(Op::OpIAdd, k.types.u64, {address, k.b.const_u64(offset)});
}
}  // namespace

Id RuntimeHelpers::translate(FunctionBuilder& f, Id ea, Id width) {
  Id address = call(f, k_.types.u64, function_id(Helper::Translate), {ea, width});
  return_if_trapped(f);
  return address;
}

AccessPath RuntimeHelpers::path_of(std::optional<uint64_t> start, std::optional<uint64_t> size) {
  return access_path(k_.proofs.address_facts, start, size);
}

Id RuntimeHelpers::module_address(FunctionBuilder& f, Id ea) {
  return f.op(Op::OpIAdd, k_.types.u64, {f.load(k_.types.u64, k_.abi.memory_base_var), ea});
}

Id RuntimeHelpers::current_memory_bytes(FunctionBuilder& f) {
  if (!k_.instance_state || memory_reserve_bytes(k_.module) == 0)
    return k_.b.const_u64(k_.proofs.address_facts.initial_memory_bytes);
  Id pages = f.load_aligned(k_.types.u32, k_.instance_pointer(f, abi::kInstanceMemoryPages, k_.types.u32), 4);
  return f.op(Op::OpIMul, k_.types.u64, {f.op(Op::OpUConvert, k_.types.u64, {pages}), k_.b.const_u64(abi::kPageSize)});
}

Id RuntimeHelpers::within_memory(FunctionBuilder& f, Id start, Id size) {
  Id end = f.op(Op::OpIAdd, k_.types.u64, {start, size});
  return f.op(Op::OpULessThanEqual, k_.types.bool_type, {end, current_memory_bytes(f)});
}

void RuntimeHelpers::set_memory_base(FunctionBuilder& f) {
  Id base;
  if (k_.instance_state && memory_reserve_bytes(k_.module) > 0) {
    base = f.load_aligned(k_.types.u64, k_.instance_pointer(f, abi::kInstanceMemoryAddress, k_.types.u64), 8);
  } else if (k_.proofs.address_facts.initial_memory_bytes > 0) {
    // Pushed by the runtime (abi/launch_abi.h): no load through the LaunchBlock.
    Id member = k_.b.const_u32(AbiVariables::kPushMemoryAddressMember);
    Id pointer = f.op(Op::OpAccessChain, k_.b.pointer_type(spv::StorageClass::PushConstant, k_.types.u64),
                      {k_.abi.push_constants_var, member});
    base = f.load(k_.types.u64, pointer);
  } else {
    return;  // no module memory: no access takes a module-memory path
  }
  f.store(k_.abi.memory_base_var, base);
}

std::optional<AccessPath> RuntimeHelpers::parameter_path(const PointerFact* fact, uint64_t offset, uint32_t width) {
  if (!fact || fact->base != PointerFact::Base::Param || k_.abi.kernel_function == UINT32_MAX ||
      k_.current_function != k_.abi.kernel_function)
    return std::nullopt;
  // Parameter 0 is the invocation index; only i32 parameters carry addresses.
  const wasm::FuncType& type = k_.module.function_type(k_.abi.kernel_function);
  if (fact->param == 0 || fact->param >= type.params.size() || type.params[fact->param] != wasm::ValType::I32)
    return std::nullopt;
  // The argument is 16-aligned whenever its ParamRegion is set (launch_abi.h).
  const uint32_t alignment = fact->alignment(offset, abi::kParamRegionAlignment);
  const bool typed = width == 1 || (width >= 4 && alignment >= width);
  return typed ? AccessPath::Parameter : AccessPath::ParameterUnaligned;
}

std::pair<Id, Id> RuntimeHelpers::parameter_check(FunctionBuilder& f, uint32_t param, Id ea, uint32_t width,
                                                  bool proven_at_launch) {
  return region_check(f, param, ea, 0, width, proven_at_launch);
}

std::pair<Id, Id> RuntimeHelpers::region_check(FunctionBuilder& f, uint32_t param, Id ea, int64_t delta, uint64_t span,
                                               bool proven_at_launch) {
  auto [inside, address] = region_compare(f, param, ea, delta, span, proven_at_launch);
  // An access proven at launch passes whatever the compare says; the
  // driver folds the specialization constant (abi/launch_proof.h).
  if (proven_at_launch) inside = f.op(Op::OpLogicalOr, k_.types.bool_type, {k_.spec.param_proven(param), inside});
  return {inside, address};
}

std::pair<Id, Id> RuntimeHelpers::region_compare(FunctionBuilder& f, uint32_t param, Id ea, int64_t delta,
                                                 uint64_t span, bool proven_at_launch) {
  ModuleBuilder& b = k_.b;
  const AbiVariables::ParamRegion& region = k_.abi.param_region(param);
  Id wasm_base = f.load(k_.types.u64, region.wasm_base), size = f.load(k_.types.u64, region.size);
  Id device = f.load(k_.types.u64, region.device_address);
  auto parts = k_.proofs.address_parts.find(ea);
  const int64_t offset = parts == k_.proofs.address_parts.end() ? -1 : int64_t(parts->second.offset) + delta;
  if (parts != k_.proofs.address_parts.end() && offset > -int64_t(span) && offset < int64_t(abi::kBufferAddressBase)) {
    // In 32 bits, where ea + delta = operand + offset. A region is present
    // when wasm_base < 2^32 (kNoParamRegion is 2^40), and then
    // kBufferAddressBase <= wasm_base and wasm_base + size <= 2^32
    // (launch_abi.h). So c = wasm_base - offset does not wrap (for an
    // offset of -d, from a group whose first member is not its lowest, c =
    // wasm_base + d, below wasm_base + span <= 2^32 whenever size >= span,
    // which the check also demands), and operand - c (mod 2^32) is exactly
    // ea + delta - wasm_base when operand >= c; otherwise it is at least
    // 2^32 - c >= size + offset > size - span (offset > -span), as a 64-bit
    // compare would find. Half the instructions of the 64-bit form.
    Id base32 = f.op(Op::OpUConvert, k_.types.u32, {wasm_base});
    Id present = f.op(Op::OpIEqual, k_.types.bool_type,
                      {f.op(Op::OpShiftRightLogical, k_.types.u64, {wasm_base, b.const_u32(32)}), b.const_u64(0)});
    Id size32 = f.op(Op::OpUConvert, k_.types.u32, {size});
    Id c = offset == 0 ? base32 : f.op(Op::OpISub, k_.types.u32, {base32, b.const_u32(uint32_t(offset))});
    Id relative = f.op(Op::OpISub, k_.types.u32, {parts->second.operand, c});
    Id within = f.op(Op::OpULessThanEqual, k_.types.bool_type,
                     {relative, f.op(Op::OpISub, k_.types.u32, {size32, b.const_u32(uint32_t(span))})});
    Id inside = f.op(Op::OpLogicalAnd, k_.types.bool_type, {present, within});
    if (span > abi::kParamRegionMinSize)  // size >= kParamRegionMinSize always; a wider span may not fit
      inside = f.op(Op::OpLogicalAnd, k_.types.bool_type,
                    {inside, f.op(Op::OpUGreaterThanEqual, k_.types.bool_type, {size32, b.const_u32(uint32_t(span))})});
    // An access proven at launch computes device + (operand - c) as
    // (device - c) + operand: the bias is uniform, so the access adds it to
    // the 32-bit operand in its own address (NVIDIA's [R.U32 + UR]) and
    // nothing is subtracted per invocation. On the H200 that took the
    // stencil from 0.85 to 0.99 of its twin; checked accesses keep the
    // other form, which their compare needs anyway (reduce 0.97 with it,
    // 0.95 without; docs/performance.md).
    if (proven_at_launch) {
      Id bias = f.op(Op::OpISub, k_.types.u64, {device, f.op(Op::OpUConvert, k_.types.u64, {c})});
      return {inside,
              f.op(Op::OpIAdd, k_.types.u64, {bias, f.op(Op::OpUConvert, k_.types.u64, {parts->second.operand})})};
    }
    Id address = f.op(Op::OpIAdd, k_.types.u64, {device, f.op(Op::OpUConvert, k_.types.u64, {relative})});
    return {inside, address};
  }
  // ea + delta - wasm_base <= size - span, with size >= span (size >=
  // kParamRegionMinSize >= width always; a group may be wider than its
  // buffer); an address below the base wraps to a huge offset.
  Id start = delta == 0 ? ea : f.op(Op::OpIAdd, k_.types.u64, {ea, b.const_u64(uint64_t(delta))});
  Id relative = f.op(Op::OpISub, k_.types.u64, {start, wasm_base});
  Id limit = f.op(Op::OpISub, k_.types.u64, {size, b.const_u64(span)});
  Id inside = f.op(Op::OpULessThanEqual, k_.types.bool_type, {relative, limit});
  if (span > abi::kParamRegionMinSize)
    inside = f.op(Op::OpLogicalAnd, k_.types.bool_type,
                  {inside, f.op(Op::OpUGreaterThanEqual, k_.types.bool_type, {size, b.const_u64(span)})});
  Id address = f.op(Op::OpIAdd, k_.types.u64, {device, relative});
  return {inside, address};
}

Id RuntimeHelpers::load_device(FunctionBuilder& f, Id address, uint32_t width, AccessPath path) {
  if (path == AccessPath::Parameter) return load_at(f, address, width, width);
  if (width < 4) return load_at(f, address, width, 1);
  return call(f, width == 8 ? k_.types.u64 : k_.types.u32, function_id(Helper::LoadDevice, width), {address});
}

void RuntimeHelpers::store_device(FunctionBuilder& f, Id address, Id value, uint32_t width, AccessPath path) {
  if (path == AccessPath::Parameter) return store_at(f, address, value, width, width);
  if (width < 4) return store_at(f, address, value, width, 1);
  call(f, k_.types.void_type, function_id(Helper::StoreDevice, width), {address, value});
}

std::optional<std::pair<uint64_t, uint64_t>> RuntimeHelpers::indexed_module_range() {
  const AddressFacts& facts = k_.proofs.address_facts;
  std::vector<std::pair<uint64_t, uint64_t>> pieces{
      {0, std::min<uint64_t>(facts.initial_memory_bytes, abi::kBufferAddressBase)}};
  for (auto [lo, hi] : {std::pair{facts.stack_lo, facts.stack_hi}, std::pair{facts.shared_lo, facts.shared_hi}}) {
    if (lo >= hi) continue;
    std::vector<std::pair<uint64_t, uint64_t>> rest;
    for (auto [a, b] : pieces) {
      if (a < std::min(b, lo)) rest.push_back({a, std::min(b, lo)});
      if (std::max(a, hi) < b) rest.push_back({std::max(a, hi), b});
    }
    pieces = rest;
  }
  std::optional<std::pair<uint64_t, uint64_t>> best;
  for (auto piece : pieces)
    if (piece.second - piece.first >= 8 && (!best || piece.second - piece.first > best->second - best->first))
      best = piece;
  return best;
}

std::optional<AccessPath> RuntimeHelpers::indexed_path(const PointerFact* fact, uint64_t offset, uint32_t width,
                                                       std::optional<uint64_t> constant) {
  if (!fact || fact->base != PointerFact::Base::Absolute) return std::nullopt;
  // A constant the module-memory paths refused is a buffer or stack address,
  // unless it lies in the shared range.
  if (constant && !(*constant >= k_.shared.lo && *constant + width <= k_.shared.hi)) return std::nullopt;
  if (!k_.shared.variable && !indexed_module_range()) return std::nullopt;
  const uint32_t alignment = fact->alignment(offset);
  const bool typed = width == 1 || (width >= 4 && alignment >= width);
  return typed ? AccessPath::Indexed : AccessPath::IndexedUnaligned;
}

void RuntimeHelpers::indexed_module_or_general(FunctionBuilder& f, Id ea, uint32_t width,
                                               const std::function<void()>& module,
                                               const std::function<void()>& general) {
  std::optional<std::pair<uint64_t, uint64_t>> range = indexed_module_range();
  if (!range) return general();
  Id offset = f.op(Op::OpISub, k_.types.u64, {ea, k_.b.const_u64(range->first)});
  Id inside =
      f.op(Op::OpULessThanEqual, k_.types.bool_type, {offset, k_.b.const_u64(range->second - range->first - width)});
  f.if_else(inside, module, general);
}

void RuntimeHelpers::indexed_access(FunctionBuilder& f, Id ea, uint32_t width, const std::function<void()>& shared,
                                    const std::function<void()>& module, const std::function<void()>& general) {
  auto module_or_general = [&] { indexed_module_or_general(f, ea, width, module, general); };
  if (k_.shared.variable)
    f.if_else(shared_contains(k_, f, ea, width), shared, module_or_general);
  else
    module_or_general();
}

Id RuntimeHelpers::load(FunctionBuilder& f, Id ea, uint32_t width, const PointerFact* fact, uint64_t offset,
                        bool proven_at_launch) {
  k_.uses_memory = true;
  const std::optional<uint64_t> constant = k_.b.integer_constant(ea);
  AccessPath path = path_of(constant, width);
  if (path == AccessPath::Translated) path = parameter_path(fact, offset, width).value_or(path);
  if (path == AccessPath::Translated) path = indexed_path(fact, offset, width, constant).value_or(path);
  k_.access_paths.add(path);
  const Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  if (path == AccessPath::Indexed || path == AccessPath::IndexedUnaligned) {
    const uint32_t alignment = fact->alignment(offset);
    Id result = f.variable(type);
    if (k_.shared.variable && width >= 4 && alignment >= 4) {
      // Speculative: the shared words are read at a clamped index before
      // any branch; other memory replaces the value when ea is not in the
      // shared range.
      auto [inside, value] = shared_load_speculative(k_, f, ea, width);
      f.store(result, value);
      f.if_else(f.op(Op::OpLogicalNot, k_.types.bool_type, {inside}), [&] {
        indexed_module_or_general(
            f, ea, width,
            [&] {
              f.store(result, load_device(f, module_address(f, ea), width,
                                          path == AccessPath::Indexed ? AccessPath::Parameter
                                                                      : AccessPath::ParameterUnaligned));
            },
            [&] { f.store(result, load_translated(f, ea, width)); });
      });
      return f.load(type, result);
    }
    indexed_access(
        f, ea, width, [&] { f.store(result, shared_load(k_, f, ea, width, alignment)); },
        [&] {
          f.store(result,
                  load_device(f, module_address(f, ea), width,
                              path == AccessPath::Indexed ? AccessPath::Parameter : AccessPath::ParameterUnaligned));
        },
        [&] { f.store(result, load_translated(f, ea, width)); });
    return f.load(type, result);
  }
  if (path == AccessPath::Parameter || path == AccessPath::ParameterUnaligned) {
    auto [inside, address] = parameter_check(f, fact->param, ea, width, proven_at_launch);
    Id result = f.variable(type);
    // An 8-byte access known only 4-aligned is two word accesses, with no
    // test (one known 8-aligned is on the typed Parameter path).
    const bool words = path == AccessPath::ParameterUnaligned && width == 8 &&
                       fact->alignment(offset, abi::kParamRegionAlignment) >= 4;
    if (path == AccessPath::Parameter || words) {
      // The typed load where the compare holds, the general path where it
      // fails. Loading speculatively instead (unconditionally, from an
      // address selected between the argument's and the LaunchBlock, with
      // the general path after) was slower on the H200 (stencil 0.75
      // against 0.80 of its twin, exact stencil 0.69 against 0.76;
      // docs/performance.md) and no faster on lavapipe.
      f.if_else(
          inside, [&] { f.store(result, words ? load_at(f, address, 8, 4) : load_at(f, address, width, width)); },
          [&] { f.store(result, load_translated(f, ea, width)); });
      return f.load(type, result);
    }
    f.if_else(
        inside, [&] { f.store(result, load_device(f, address, width, path)); },
        [&] { f.store(result, load_translated(f, ea, width)); });
    return f.load(type, result);
  }
  switch (path) {
    case AccessPath::Direct: return load_at(f, module_address(f, ea), width, constant_alignment(*constant));
    case AccessPath::BoundsChecked: {
      // A trapped access yields 0, as the Translated path does.
      Id result = f.variable(type);
      f.store(result, k_.b.const_null(type));
      f.if_else(
          within_memory(f, ea, k_.b.const_u64(width)),
          [&] { f.store(result, load_at(f, module_address(f, ea), width, constant_alignment(*constant))); },
          [&] { trap(f, abi::TrapKind::MemoryOutOfBounds, trapped_access(ea, width)); });
      return f.load(type, result);
    }
    default: break;
  }
  return load_translated(f, ea, width);
}

std::optional<Id> RuntimeHelpers::load_v128(FunctionBuilder& f, Id ea, const PointerFact* fact, uint64_t offset,
                                            bool proven_at_launch) {
  if (k_.b.integer_constant(ea) || parameter_path(fact, offset, 16) != AccessPath::Parameter) return std::nullopt;
  k_.uses_memory = true;
  k_.access_paths.add(AccessPath::Parameter);
  const Id v128 = k_.types.v128(), u64x2 = k_.b.vector_type(k_.types.u64, 2);
  auto [inside, address] = parameter_check(f, fact->param, ea, 16, proven_at_launch);
  Id result = f.variable(v128);
  f.if_else(
      inside, [&] { f.store(result, f.load_aligned(v128, k_.device_pointer(f, address, v128), 16)); },
      [&] {
        const Id halves[] = {load_translated(f, ea, 8),
                             load_translated(f, f.op(Op::OpIAdd, k_.types.u64, {ea, k_.b.const_u64(8)}), 8)};
        f.store(result, f.op(Op::OpBitcast, v128, {f.op(Op::OpCompositeConstruct, u64x2, halves)}));
      });
  return f.load(v128, result);
}

bool RuntimeHelpers::store_v128(FunctionBuilder& f, Id ea, Id value, const PointerFact* fact, uint64_t offset,
                                bool proven_at_launch) {
  if (k_.b.integer_constant(ea) || parameter_path(fact, offset, 16) != AccessPath::Parameter) return false;
  k_.uses_memory = true;
  k_.access_paths.add(AccessPath::Parameter);
  const Id v128 = k_.types.v128(), u64x2 = k_.b.vector_type(k_.types.u64, 2);
  auto [inside, address] = parameter_check(f, fact->param, ea, 16, proven_at_launch);
  Id running = f.op(Op::OpLogicalNot, k_.types.bool_type, {trapped(f)});
  f.if_else(
      f.op(Op::OpLogicalAnd, k_.types.bool_type, {inside, running}),
      [&] { f.store_aligned(k_.device_pointer(f, address, v128), value, 16); },
      [&] {
        Id halves = f.op(Op::OpBitcast, u64x2, {value});
        Id high = f.op(Op::OpCompositeExtract, k_.types.u64, {halves, literal(1)});
        store_translated(f, f.op(Op::OpIAdd, k_.types.u64, {ea, k_.b.const_u64(8)}), high, 8);
        store_translated(f, ea, f.op(Op::OpCompositeExtract, k_.types.u64, {halves, literal(0)}), 8);
      });
  return true;
}

Id RuntimeHelpers::load_translated(FunctionBuilder& f, Id ea, uint32_t width) {
  return call(f, width == 8 ? k_.types.u64 : k_.types.u32, function_id(Helper::Load, width), {ea});
}

void RuntimeHelpers::store_translated(FunctionBuilder& f, Id ea, Id value, uint32_t width) {
  call(f, k_.types.void_type, function_id(Helper::Store, width), {ea, value});
}

void RuntimeHelpers::store(FunctionBuilder& f, Id ea, Id value, uint32_t width, const PointerFact* fact,
                           uint64_t offset, bool proven_at_launch) {
  k_.uses_memory = true;
  const std::optional<uint64_t> constant = k_.b.integer_constant(ea);
  AccessPath path = path_of(constant, width);
  if (path == AccessPath::Translated) path = parameter_path(fact, offset, width).value_or(path);
  if (path == AccessPath::Translated) path = indexed_path(fact, offset, width, constant).value_or(path);
  k_.access_paths.add(path);
  if (path == AccessPath::Translated) return store_translated(f, ea, value, width);
  if (path == AccessPath::Indexed || path == AccessPath::IndexedUnaligned) {
    const uint32_t alignment = fact->alignment(offset);
    // A trapped invocation writes nothing more.
    f.if_else(f.op(Op::OpLogicalNot, k_.types.bool_type, {trapped(f)}), [&] {
      indexed_access(
          f, ea, width, [&] { shared_store(k_, f, ea, value, width, alignment); },
          [&] {
            store_device(f, module_address(f, ea), value, width,
                         path == AccessPath::Indexed ? AccessPath::Parameter : AccessPath::ParameterUnaligned);
          },
          [&] { store_translated(f, ea, value, width); });
    });
    return;
  }
  if (path == AccessPath::Parameter || path == AccessPath::ParameterUnaligned) {
    auto [inside, address] = parameter_check(f, fact->param, ea, width, proven_at_launch);
    // A trapped invocation writes nothing more: the general path checks that.
    Id fast =
        f.op(Op::OpLogicalAnd, k_.types.bool_type, {inside, f.op(Op::OpLogicalNot, k_.types.bool_type, {trapped(f)})});
    const bool words = path == AccessPath::ParameterUnaligned && width == 8 &&
                       fact->alignment(offset, abi::kParamRegionAlignment) >= 4;
    f.if_else(
        fast, [&] { words ? store_at(f, address, value, 8, 4) : store_device(f, address, value, width, path); },
        [&] { store_translated(f, ea, value, width); });
    return;
  }
  auto write = [&] { store_at(f, module_address(f, ea), value, width, constant_alignment(*constant)); };
  // A trapped invocation writes nothing more.
  f.if_else(f.op(Op::OpLogicalNot, k_.types.bool_type, {trapped(f)}), [&] {
    if (path == AccessPath::Direct)
      write();
    else
      f.if_else(within_memory(f, ea, k_.b.const_u64(width)), write,
                [&] { trap(f, abi::TrapKind::MemoryOutOfBounds, trapped_access(ea, width)); });
  });
}

void RuntimeHelpers::emit_translate(Id id) {
  Id params[] = {k_.types.u64, k_.types.u32};
  FunctionBuilder f(k_.b, id, k_.types.u64, params);
  k_.b.name(id, "wasmgpu.translate");
  ModuleBuilder& b = k_.b;
  Id ea = f.param(0);
  Id size = f.op(Op::OpUConvert, k_.types.u64, {f.param(1)});
  Id end = f.op(Op::OpIAdd, k_.types.u64, {ea, size});
  auto ge = [&](Id x, Id y) { return f.op(Op::OpUGreaterThanEqual, k_.types.bool_type, {x, y}); };
  auto le = [&](Id x, Id y) { return f.op(Op::OpULessThanEqual, k_.types.bool_type, {x, y}); };
  auto lt = [&](Id x, Id y) { return f.op(Op::OpULessThan, k_.types.bool_type, {x, y}); };
  auto both = [&](Id x, Id y) { return f.op(Op::OpLogicalAnd, k_.types.bool_type, {x, y}); };

  const StackLayout& stack = k_.stack;
  if (stack.slot_size != 0) {
    Id window_lo = b.const_u64(stack.window_lo), stack_hi = b.const_u64(stack.stack_hi);
    Id ends_below_hi = le(end, stack_hi);
    Id inside = both(ge(ea, window_lo), ends_below_hi);
    f.if_else(inside, [&] {
      Id base = launch_field(f, abi::kLaunchStackBase, 8);
      Id slot = f.op(Op::OpUConvert, k_.types.u64, {f.load(k_.types.u32, k_.abi.stack_slot_var)});
      Id slot_offset = f.op(Op::OpIMul, k_.types.u64, {slot, b.const_u64(k_.stack_slot_size)});
      Id address = f.op(Op::OpIAdd, k_.types.u64, {base, slot_offset});
      address = f.op(Op::OpIAdd, k_.types.u64, {address, f.op(Op::OpISub, k_.types.u64, {ea, window_lo})});
      f.return_value(address);
    });
    // Below the window but inside the stack region: the stack overflowed.
    if (stack.stack_lo < stack.window_lo) {
      Id below_window = lt(ea, window_lo);
      Id overflow = both(ge(ea, b.const_u64(stack.stack_lo)), below_window);
      f.if_else(overflow, [&] { trap_and_return(f, abi::TrapKind::StackOverflow, trapped_access(ea, f.param(1))); });
    }
    // Straddling the window's edges.
    Id ends_above_lo = f.op(Op::OpUGreaterThan, k_.types.bool_type, {end, window_lo});
    Id straddles = both(lt(ea, stack_hi), ends_above_lo);
    f.if_else(straddles, [&] { trap_and_return(f, abi::TrapKind::MemoryOutOfBounds, trapped_access(ea, f.param(1))); });
  }

  // Below the buffers lies only the module memory, bounded by its current
  // size (with instance state the allocated reserve may be larger).
  f.if_else(lt(ea, b.const_u64(abi::kBufferAddressBase)), [&] {
    f.if_else(within_memory(f, ea, size), [&] { f.return_value(module_address(f, ea)); });
    trap_and_return(f, abi::TrapKind::MemoryOutOfBounds, trapped_access(ea, f.param(1)));
  });

  Id count = launch_field(f, abi::kLaunchRegionCount, 4);
  Id regions = f.op(Op::OpUConvert, k_.types.u64, {launch_field(f, abi::kLaunchRegionsOffset, 4)});
  regions = f.op(Op::OpIAdd, k_.types.u64, {f.load(k_.types.u64, k_.abi.launch_block_var), regions});
  counted_loop(f, f.op(Op::OpUConvert, k_.types.u64, {count}), [&](Id i) {
    Id entry =
        f.op(Op::OpIAdd, k_.types.u64, {regions, f.op(Op::OpIMul, k_.types.u64, {i, b.const_u64(abi::kRegionStride)})});
    auto field = [&](uint32_t offset, Id type, uint32_t width) {
      return f.load_aligned(type, k_.device_pointer(f, offset_address(k_, f, entry, offset), type), width);
    };
    Id base = f.op(Op::OpUConvert, k_.types.u64, {field(abi::kRegionWasmBase, k_.types.u32, 4)});
    Id region_size = f.op(Op::OpUConvert, k_.types.u64, {field(abi::kRegionSize, k_.types.u32, 4)});
    Id ends_inside = le(end, f.op(Op::OpIAdd, k_.types.u64, {base, region_size}));
    Id inside = both(ge(ea, base), ends_inside);
    f.if_else(inside, [&] {
      Id device = field(abi::kRegionDeviceAddress, k_.types.u64, 8);
      f.return_value(f.op(Op::OpIAdd, k_.types.u64, {device, f.op(Op::OpISub, k_.types.u64, {ea, base})}));
    });
  });
  trap_and_return(f, abi::TrapKind::MemoryOutOfBounds, trapped_access(ea, f.param(1)));
  f.finish();
}

void RuntimeHelpers::counted_loop(FunctionBuilder& f, Id count, const std::function<void(Id)>& body, bool backwards) {
  ModuleBuilder& b = k_.b;
  Id counter = f.variable(k_.types.u64);
  f.store(counter, backwards ? count : b.const_u64(0));
  f.loop(
      [&](const FunctionBuilder::LoopBlocks& loop) {
        Id i = f.load(k_.types.u64, counter);
        if (backwards) {
          f.if_else(f.op(Op::OpIEqual, k_.types.bool_type, {i, b.const_u64(0)}), [&] { f.branch(loop.merge); });
          i = f.op(Op::OpISub, k_.types.u64, {i, b.const_u64(1)});
          f.store(counter, i);
        } else {
          f.if_else(f.op(Op::OpUGreaterThanEqual, k_.types.bool_type, {i, count}), [&] { f.branch(loop.merge); });
        }
        body(i);
      },
      [&](const FunctionBuilder::LoopBlocks& loop) {
        if (!backwards)
          f.store(counter, f.op(Op::OpIAdd, k_.types.u64, {f.load(k_.types.u64, counter), b.const_u64(1)}));
        f.branch(loop.header);
      });
}

Id RuntimeHelpers::load_at(FunctionBuilder& f, Id address, uint32_t width, uint32_t alignment) {
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  if (alignment >= width && width >= 4) return f.load_aligned(type, k_.device_pointer(f, address, type), width);
  if (width == 8 && alignment >= 4) {
    Id low = f.load_aligned(k_.types.u32, k_.device_pointer(f, address, k_.types.u32), 4);
    Id high = f.load_aligned(k_.types.u32, k_.device_pointer(f, offset_address(k_, f, address, 4), k_.types.u32), 4);
    low = f.op(Op::OpUConvert, k_.types.u64, {low});
    high = f.op(Op::OpShiftLeftLogical, k_.types.u64, {f.op(Op::OpUConvert, k_.types.u64, {high}), k_.b.const_u32(32)});
    return f.op(Op::OpBitwiseOr, k_.types.u64, {low, high});
  }
  Id value;
  const Id u8 = k_.types.u8();
  for (uint32_t i = 0; i < width; ++i) {
    Id byte_ptr = k_.device_pointer(f, offset_address(k_, f, address, i), u8);
    Id byte = f.op(Op::OpUConvert, type, {f.load_aligned(u8, byte_ptr, 1)});
    if (i != 0) byte = f.op(Op::OpShiftLeftLogical, type, {byte, k_.b.const_u32(8 * i)});
    value = i == 0 ? byte : f.op(Op::OpBitwiseOr, type, {value, byte});
  }
  return value;
}

void RuntimeHelpers::store_at(FunctionBuilder& f, Id address, Id value, uint32_t width, uint32_t alignment) {
  const Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  if (alignment >= width && width >= 4) {
    f.store_aligned(k_.device_pointer(f, address, type), value, width);
    return;
  }
  if (width == 8 && alignment >= 4) {
    Id low = f.op(Op::OpUConvert, k_.types.u32, {value});
    Id high =
        f.op(Op::OpUConvert, k_.types.u32, {f.op(Op::OpShiftRightLogical, k_.types.u64, {value, k_.b.const_u32(32)})});
    f.store_aligned(k_.device_pointer(f, address, k_.types.u32), low, 4);
    f.store_aligned(k_.device_pointer(f, offset_address(k_, f, address, 4), k_.types.u32), high, 4);
    return;
  }
  const Id u8 = k_.types.u8();
  for (uint32_t i = 0; i < width; ++i) {
    Id shifted = i == 0 ? value : f.op(Op::OpShiftRightLogical, type, {value, k_.b.const_u32(8 * i)});
    Id byte = f.op(Op::OpUConvert, u8, {shifted});
    f.store_aligned(k_.device_pointer(f, offset_address(k_, f, address, i), u8), byte, 1);
  }
}

// Returns the `width` bytes at device `address`: one typed load when the
// address turns out aligned at run time, else in pieces.
void RuntimeHelpers::return_load_by_alignment(FunctionBuilder& f, Id address, uint32_t width) {
  for (uint32_t alignment : {8u, 4u}) {
    if (alignment > width) continue;
    f.if_else(is_aligned(k_, f, address, alignment), [&] { f.return_value(load_at(f, address, width, alignment)); });
  }
  f.return_value(load_at(f, address, width, 1));
}

// The store counterpart of return_load_by_alignment, then returns.
void RuntimeHelpers::store_by_alignment_and_return(FunctionBuilder& f, Id address, Id value, uint32_t width) {
  for (uint32_t alignment : {8u, 4u}) {
    if (alignment > width) continue;
    f.if_else(is_aligned(k_, f, address, alignment), [&] {
      store_at(f, address, value, width, alignment);
      f.return_();
    });
  }
  store_at(f, address, value, width, 1);
  f.return_();
}

void RuntimeHelpers::emit_load(Id id, uint32_t width) {
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  Id params[] = {k_.types.u64};
  FunctionBuilder f(k_.b, id, type, params);
  k_.b.name(id, "wasmgpu.load" + std::to_string(width * 8));
  shared_access(f, f.param(0), width, [&] { f.return_value(shared_load(k_, f, f.param(0), width)); });
  return_load_by_alignment(f, translate(f, f.param(0), k_.b.const_u32(width)), width);
  f.finish();
}

void RuntimeHelpers::emit_store(Id id, uint32_t width) {
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  Id params[] = {k_.types.u64, type};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.store" + std::to_string(width * 8));
  return_if_trapped(f);  // a trapped invocation writes nothing more
  Id value = f.param(1);
  shared_access(f, f.param(0), width, [&] {
    shared_store(k_, f, f.param(0), value, width);
    f.return_();
  });
  store_by_alignment_and_return(f, translate(f, f.param(0), k_.b.const_u32(width)), value, width);
  f.finish();
}

// The device access of the ParameterUnaligned path: typed when the address
// turns out aligned, else in pieces (as the general helpers do).
void RuntimeHelpers::emit_load_device(Id id, uint32_t width) {
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  Id params[] = {k_.types.u64};
  FunctionBuilder f(k_.b, id, type, params);
  k_.b.name(id, "wasmgpu.load_device" + std::to_string(width * 8));
  return_load_by_alignment(f, f.param(0), width);
  f.finish();
}

void RuntimeHelpers::emit_store_device(Id id, uint32_t width) {
  Id type = width == 8 ? k_.types.u64 : k_.types.u32;
  Id params[] = {k_.types.u64, type};
  FunctionBuilder f(k_.b, id, k_.types.void_type, params);
  k_.b.name(id, "wasmgpu.store_device" + std::to_string(width * 8));
  store_by_alignment_and_return(f, f.param(0), f.param(1), width);
  f.finish();
}

// Workgroup-shared memory (workgroup_memory.h): an access inside the shared
// range runs `inside` (which must return); one straddling its edge traps.
void RuntimeHelpers::shared_access(FunctionBuilder& f, Id ea, uint32_t width, const std::function<void()>& inside) {
  if (!k_.shared.variable) return;
  f.if_else(shared_contains(k_, f, ea, width), inside);
  f.if_else(shared_overlaps(k_, f, ea, k_.b.const_u32(width)),
            [&] { trap_and_return(f, abi::TrapKind::MemoryOutOfBounds); });
}

}  // namespace wasmgpu::spirv
