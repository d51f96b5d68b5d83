#include "spirv/workgroup_memory.h"

#include <string_view>

#include <spirv/unified1/GLSL.std.450.h>

namespace wasmgpu::spirv {

namespace {
using Op = spv::Op;

Id word_index(KernelContext& k, FunctionBuilder& f, Id ea) {
  Id offset = f.op(Op::OpISub, k.types.u64, {ea, k.b.const_u64(k.shared.lo)});
  return f.op(Op::OpUConvert, k.types.u32, {f.op(Op::OpShiftRightLogical, k.types.u64, {offset, k.b.const_u32(2)})});
}

Id is_aligned(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t alignment) {
  Id low = f.op(Op::OpBitwiseAnd, k.types.u64, {ea, k.b.const_u64(alignment - 1)});
  return f.op(Op::OpIEqual, k.types.bool_type, {low, k.b.const_u64(0)});
}

Id plus(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t offset) {
  return offset == 0 ? ea : f.op(Op::OpIAdd, k.types.u64, {ea, k.b.const_u64(offset)});
}

// The byte at `ea` as a u32 in 0..255.
Id load_byte(KernelContext& k, FunctionBuilder& f, Id ea) {
  Id word = f.load(k.types.u32, shared_word_pointer(k, f, ea));
  Id shift = f.op(Op::OpUConvert, k.types.u32, {f.op(Op::OpBitwiseAnd, k.types.u64, {ea, k.b.const_u64(3)})});
  shift = f.op(Op::OpShiftLeftLogical, k.types.u32, {shift, k.b.const_u32(3)});
  return f.op(Op::OpBitwiseAnd, k.types.u32,
              {f.op(Op::OpShiftRightLogical, k.types.u32, {word, shift}), k.b.const_u32(0xFF)});
}

void store_byte(KernelContext& k, FunctionBuilder& f, Id ea, Id byte) {
  ModuleBuilder& b = k.b;
  Id pointer = shared_word_pointer(k, f, ea);
  Id shift = f.op(Op::OpUConvert, k.types.u32, {f.op(Op::OpBitwiseAnd, k.types.u64, {ea, b.const_u64(3)})});
  shift = f.op(Op::OpShiftLeftLogical, k.types.u32, {shift, b.const_u32(3)});
  Id keep = f.op(Op::OpNot, k.types.u32, {f.op(Op::OpShiftLeftLogical, k.types.u32, {b.const_u32(0xFF), shift})});
  Id bits = f.op(Op::OpShiftLeftLogical, k.types.u32,
                 {f.op(Op::OpBitwiseAnd, k.types.u32, {byte, b.const_u32(0xFF)}), shift});
  Id scope = b.const_u32(uint32_t(spv::Scope::Workgroup)), relaxed = b.const_u32(0);
  f.op(Op::OpAtomicAnd, k.types.u32, {pointer, scope, relaxed, keep});
  f.op(Op::OpAtomicOr, k.types.u32, {pointer, scope, relaxed, bits});
}
}  // namespace

void declare_shared_memory(KernelContext& k) {
  if (k.shared.hi == k.shared.lo) return;
  ModuleBuilder& b = k.b;
  uint32_t words = (k.shared.hi - k.shared.lo) / 4;
  const Id array = b.array_type(k.types.u32, b.const_u32(words));
  k.shared.variable =
      b.global_variable(b.pointer_type(spv::StorageClass::Workgroup, array), spv::StorageClass::Workgroup);
  b.name(k.shared.variable, "wasmgpu_shared");
}

Id unless_proven(KernelContext& k, FunctionBuilder& f, Id inside, Id ea, int64_t delta, uint64_t span) {
  auto proof = k.proofs.shared_proofs.find(ea);
  if (proof == k.proofs.shared_proofs.end() || delta < proof->second.lo || delta + int64_t(span) > proof->second.hi)
    return inside;
  return f.op(Op::OpLogicalOr, k.types.bool_type, {k.spec.workgroup_at_most(proof->second.invocations), inside});
}

Id shared_contains(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t width) {
  Id end = plus(k, f, ea, width);
  Id above = f.op(Op::OpUGreaterThanEqual, k.types.bool_type, {ea, k.b.const_u64(k.shared.lo)});
  Id below = f.op(Op::OpULessThanEqual, k.types.bool_type, {end, k.b.const_u64(k.shared.hi)});
  return unless_proven(k, f, f.op(Op::OpLogicalAnd, k.types.bool_type, {above, below}), ea, 0, width);
}

Id shared_overlaps(KernelContext& k, FunctionBuilder& f, Id ea, Id width_value) {
  Id end = f.op(Op::OpIAdd, k.types.u64, {ea, f.op(Op::OpUConvert, k.types.u64, {width_value})});
  Id starts_below_end = f.op(Op::OpULessThan, k.types.bool_type, {ea, k.b.const_u64(k.shared.hi)});
  Id ends_above_start = f.op(Op::OpUGreaterThan, k.types.bool_type, {end, k.b.const_u64(k.shared.lo)});
  return f.op(Op::OpLogicalAnd, k.types.bool_type, {starts_below_end, ends_above_start});
}

Id shared_word_pointer(KernelContext& k, FunctionBuilder& f, Id ea) {
  return shared_word_pointer_at(k, f, word_index(k, f, ea));
}

Id shared_word_pointer_at(KernelContext& k, FunctionBuilder& f, Id index, uint32_t words) {
  if (words != 0) index = f.op(Op::OpIAdd, k.types.u32, {index, k.b.const_u32(words)});
  return f.op(Op::OpAccessChain, k.b.pointer_type(spv::StorageClass::Workgroup, k.types.u32),
              {k.shared.variable, index});
}

Id shared_load(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t width, uint32_t known_alignment) {
  const Id type = width == 8 ? k.types.u64 : k.types.u32;
  Id result = f.variable(type);
  auto words = [&]() -> Id {
    Id low = f.load(k.types.u32, shared_word_pointer(k, f, ea));
    if (width == 4) return low;
    Id high = f.load(k.types.u32, shared_word_pointer(k, f, plus(k, f, ea, 4)));
    high = f.op(Op::OpShiftLeftLogical, k.types.u64, {f.op(Op::OpUConvert, k.types.u64, {high}), k.b.const_u32(32)});
    return f.op(Op::OpBitwiseOr, k.types.u64, {f.op(Op::OpUConvert, k.types.u64, {low}), high});
  };
  auto bytes = [&] {
    Id value;
    for (uint32_t i = 0; i < width; ++i) {
      Id byte = load_byte(k, f, plus(k, f, ea, i));
      if (width == 8) byte = f.op(Op::OpUConvert, k.types.u64, {byte});
      if (i != 0) byte = f.op(Op::OpShiftLeftLogical, type, {byte, k.b.const_u32(8 * i)});
      value = i == 0 ? byte : f.op(Op::OpBitwiseOr, type, {value, byte});
    }
    return value;
  };
  if (width >= 4 && known_alignment >= 4)
    f.store(result, words());
  else if (width >= 4)
    f.if_else(is_aligned(k, f, ea, 4), [&] { f.store(result, words()); }, [&] { f.store(result, bytes()); });
  else
    f.store(result, bytes());
  return f.load(type, result);
}

std::pair<Id, Id> shared_range_check32(KernelContext& k, FunctionBuilder& f, Id operand, uint64_t offset,
                                       uint64_t span) {
  const uint64_t last = uint64_t(k.shared.hi - k.shared.lo) - span;
  Id relative = f.op(Op::OpISub, k.types.u32, {operand, k.b.const_u32(uint32_t(k.shared.lo - offset))});
  return {f.op(Op::OpULessThanEqual, k.types.bool_type, {relative, k.b.const_u32(uint32_t(last))}), relative};
}

std::pair<Id, Id> shared_range_check(KernelContext& k, FunctionBuilder& f, Id ea, int64_t delta, uint64_t span) {
  auto parts = k.proofs.address_parts.find(ea);
  const int64_t offset = parts == k.proofs.address_parts.end() ? -1 : int64_t(parts->second.offset) + delta;
  // Also for an offset of -d > -span (a group whose first member is not its
  // lowest): then c = lo + d < lo + span <= hi, and an operand below c
  // wraps to at least 2^32 - lo - d > (hi - lo) - span.
  if (parts != k.proofs.address_parts.end() && offset > -int64_t(span) && offset <= int64_t(k.shared.lo)) {
    auto [inside, relative] = shared_range_check32(k, f, parts->second.operand, uint64_t(offset), span);
    return {unless_proven(k, f, inside, ea, delta, span), relative};
  }
  // start - lo <= (hi - lo) - span: one compare; a start below lo (or below
  // 0) wraps to a huge value.
  Id start = delta == 0 ? ea : f.op(Op::OpIAdd, k.types.u64, {ea, k.b.const_u64(uint64_t(delta))});
  Id relative = f.op(Op::OpISub, k.types.u64, {start, k.b.const_u64(k.shared.lo)});
  Id inside = f.op(Op::OpULessThanEqual, k.types.bool_type,
                   {relative, k.b.const_u64(uint64_t(k.shared.hi - k.shared.lo) - span)});
  // Below 2^32 whenever inside holds, which is when it is used; then also
  // operand + offset - lo computed in 32 bits, where the parts are known (a
  // proven access keeps only this arithmetic).
  Id relative32 = parts == k.proofs.address_parts.end()
                      ? f.op(Op::OpUConvert, k.types.u32, {relative})
                      : f.op(Op::OpISub, k.types.u32,
                             {parts->second.operand, k.b.const_u32(uint32_t(int64_t(k.shared.lo) - offset))});
  return {unless_proven(k, f, inside, ea, delta, span), relative32};
}

std::pair<Id, Id> shared_load_speculative(KernelContext& k, FunctionBuilder& f, Id ea, uint32_t width) {
  const uint64_t last = uint64_t(k.shared.hi - k.shared.lo) - width;
  auto [inside, offset] = shared_range_check(k, f, ea, 0, width);
  Id index = f.op(Op::OpShiftRightLogical, k.types.u32, {offset, k.b.const_u32(2)});
  index = f.glsl(GLSLstd450UMin, k.types.u32, {index, k.b.const_u32(uint32_t(last / 4))});
  Id low = f.load(k.types.u32, shared_word_pointer_at(k, f, index));
  if (width == 4) return {inside, low};
  Id high = f.load(k.types.u32, shared_word_pointer_at(k, f, index, 1));
  high = f.op(Op::OpShiftLeftLogical, k.types.u64, {f.op(Op::OpUConvert, k.types.u64, {high}), k.b.const_u32(32)});
  return {inside, f.op(Op::OpBitwiseOr, k.types.u64, {f.op(Op::OpUConvert, k.types.u64, {low}), high})};
}

void shared_store(KernelContext& k, FunctionBuilder& f, Id ea, Id value, uint32_t width, uint32_t known_alignment) {
  Id type = width == 8 ? k.types.u64 : k.types.u32;
  auto words = [&] {
    Id low = width == 8 ? f.op(Op::OpUConvert, k.types.u32, {value}) : value;
    f.store(shared_word_pointer(k, f, ea), low);
    if (width == 8) {
      Id high =
          f.op(Op::OpUConvert, k.types.u32, {f.op(Op::OpShiftRightLogical, k.types.u64, {value, k.b.const_u32(32)})});
      f.store(shared_word_pointer(k, f, plus(k, f, ea, 4)), high);
    }
  };
  auto bytes = [&] {
    for (uint32_t i = 0; i < width; ++i) {
      Id shifted = i == 0 ? value : f.op(Op::OpShiftRightLogical, type, {value, k.b.const_u32(8 * i)});
      if (width == 8) shifted = f.op(Op::OpUConvert, k.types.u32, {shifted});
      store_byte(k, f, plus(k, f, ea, i), shifted);
    }
  };
  if (width >= 4 && known_alignment >= 4)
    words();
  else if (width >= 4)
    f.if_else(is_aligned(k, f, ea, 4), words, bytes);
  else
    bytes();
}

}  // namespace wasmgpu::spirv
