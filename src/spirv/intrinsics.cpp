// The lowering of the wasmgpu intrinsics (frontend/intrinsic_catalog.h holds
// their table and the check that refuses anything else before launch).
//
// Ids are u32 built-ins (vectors indexed by the dimension argument; a
// dimension > 2 reads as 0, or 1 for sizes and counts). Dimension 0 of the
// global and workgroup ids adds the dispatch's base (a large 1-D launch is
// split into several dispatches), so they match the kernel's index.
// Subgroup operations are GroupNonUniform instructions at Subgroup scope.
// Atomics go through one helper function per operation, which checks natural
// alignment (misaligned atomics trap, as wasm's threads proposal says) and
// then performs one SPIR-V atomic: Workgroup scope on workgroup-shared memory
// (workgroup_memory.h), Device scope on device memory. Atomics are relaxed;
// order them with barriers. f32 add is a compare-exchange loop, which every
// device supports.
#include "spirv/intrinsics.h"

#include <array>
#include <cassert>
#include <functional>
#include <string_view>

#include "abi/launch_abi.h"
#include "frontend/intrinsic_catalog.h"
#include "spirv/images.h"
#include "spirv/runtime_helpers.h"
#include "spirv/workgroup_memory.h"

namespace wasmgpu::spirv {

namespace {

using Op = spv::Op;
using frontend::IntrinsicKind;

}  // namespace

Id Intrinsics::lower_call(FunctionBuilder& f, uint32_t function_index, std::span<const Id> args) {
  ModuleBuilder& b = k_.b;
  const frontend::Intrinsic& intrinsic = *frontend::find_intrinsic(k_.module, function_index);
  const Id u32 = k_.types.u32;
  auto subgroup_scope = [&] { return b.const_u32(uint32_t(spv::Scope::Subgroup)); };
  // Component args[0] of a uvec3; `outside` for dimensions > 2.
  auto dimension_of = [&](Id vector, uint32_t outside) {
    Id dimension = args[0];
    Id inside = f.op(Op::OpULessThan, k_.types.bool_type, {dimension, b.const_u32(3)});
    Id safe = f.op(Op::OpSelect, u32, {inside, dimension, b.const_u32(0)});
    Id value = f.op(Op::OpVectorExtractDynamic, u32, {vector, safe});
    return f.op(Op::OpSelect, u32, {inside, value, b.const_u32(outside)});
  };
  auto builtin_vector = [&](spv::BuiltIn builtin) {
    Id input = k_.abi.builtin_input(builtin, k_.types.uvec3());
    return f.load(k_.types.uvec3(), input);
  };
  auto builtin_scalar = [&](spv::BuiltIn builtin) { return f.load(u32, k_.abi.builtin_input(builtin, u32)); };
  auto is_x = [&] { return f.op(Op::OpIEqual, k_.types.bool_type, {args[0], b.const_u32(0)}); };
  auto group_arith = [&](Op op, spv::GroupOperation operation) {
    b.capability(spv::Capability::GroupNonUniformArithmetic);
    Id type = b.type_of(args[0]);
    return f.op(op, type, {subgroup_scope(), operation, args[0]});
  };
  auto float_or_int = [&](Op float_op, Op int_op) { return b.type_of(args[0]) == k_.types.f32() ? float_op : int_op; };

  switch (intrinsic.kind) {
    case IntrinsicKind::GlobalId: {
      Id value = dimension_of(builtin_vector(spv::BuiltIn::GlobalInvocationId), 0);
      Id base = f.op(Op::OpSelect, u32, {is_x(), f.load(u32, k_.abi.base_index_var), b.const_u32(0)});
      return f.op(Op::OpIAdd, u32, {value, base});
    }
    case IntrinsicKind::LocalId: return dimension_of(builtin_vector(spv::BuiltIn::LocalInvocationId), 0);
    case IntrinsicKind::WorkgroupId: {
      Id value = dimension_of(builtin_vector(spv::BuiltIn::WorkgroupId), 0);
      Id size_x = f.op(Op::OpCompositeExtract, u32, {k_.spec.workgroup_size(), literal(0)});
      Id base = f.op(Op::OpUDiv, u32, {f.load(u32, k_.abi.base_index_var), size_x});
      base = f.op(Op::OpSelect, u32, {is_x(), base, b.const_u32(0)});
      return f.op(Op::OpIAdd, u32, {value, base});
    }
    case IntrinsicKind::WorkgroupSize: {
      // OpVectorExtractDynamic needs a non-constant vector: copy it.
      Id size = k_.spec.workgroup_size();
      Id vector = f.op(Op::OpCopyObject, k_.types.uvec3(), {size});
      return dimension_of(vector, 1);
    }
    case IntrinsicKind::WorkgroupCount: {
      // A split 1-D launch has more workgroups than one dispatch: x counts
      // the whole launch (count rounded up to workgroups). Only a launch
      // over x alone (abi::index_dims 1): a grid's count spans y and z too.
      Id value = dimension_of(builtin_vector(spv::BuiltIn::NumWorkgroups), 1);
      Id size_x = f.op(Op::OpCompositeExtract, u32, {k_.spec.workgroup_size(), literal(0)});
      Id count = f.load(u32, k_.abi.invocation_count_var);
      Id launch_x = f.op(Op::OpUDiv, u32,
                         {f.op(Op::OpIAdd, u32, {count, f.op(Op::OpISub, u32, {size_x, b.const_u32(1)})}), size_x});
      const Operand dims_operands[] = {k_.spec.index_dims(), b.const_u32(1)};
      Id over_x = b.spec_const_op(k_.types.bool_type, Op::OpIEqual, dims_operands);
      Id one_d = f.op(Op::OpLogicalAnd, k_.types.bool_type,
                      {f.op(Op::OpLogicalAnd, k_.types.bool_type, {is_x(), over_x}),
                       f.op(Op::OpUGreaterThan, k_.types.bool_type, {launch_x, value})});
      return f.op(Op::OpSelect, u32, {one_d, launch_x, value});
    }
    case IntrinsicKind::LocalIndex: return builtin_scalar(spv::BuiltIn::LocalInvocationIndex);
    case IntrinsicKind::Barrier:
      k_.uses_barriers = true;
      f.op_void(Op::OpControlBarrier,
                {b.const_u32(uint32_t(spv::Scope::Workgroup)), b.const_u32(uint32_t(spv::Scope::Workgroup)),
                 b.const_u32(uint32_t(spv::MemorySemanticsMask::AcquireRelease) |
                             uint32_t(spv::MemorySemanticsMask::WorkgroupMemory))});
      return Id();
    case IntrinsicKind::MemoryBarrier:
      f.op_void(Op::OpMemoryBarrier, {b.const_u32(uint32_t(spv::Scope::Device)),
                                      b.const_u32(uint32_t(spv::MemorySemanticsMask::AcquireRelease) |
                                                  uint32_t(spv::MemorySemanticsMask::UniformMemory) |
                                                  uint32_t(spv::MemorySemanticsMask::WorkgroupMemory))});
      return Id();
    case IntrinsicKind::WorkgroupMemoryBarrier:
      f.op_void(Op::OpMemoryBarrier, {b.const_u32(uint32_t(spv::Scope::Workgroup)),
                                      b.const_u32(uint32_t(spv::MemorySemanticsMask::AcquireRelease) |
                                                  uint32_t(spv::MemorySemanticsMask::WorkgroupMemory))});
      return Id();
    case IntrinsicKind::SubgroupSize:
      b.capability(spv::Capability::GroupNonUniform);
      return builtin_scalar(spv::BuiltIn::SubgroupSize);
    case IntrinsicKind::SubgroupInvocationId:
      b.capability(spv::Capability::GroupNonUniform);
      return builtin_scalar(spv::BuiltIn::SubgroupLocalInvocationId);
    case IntrinsicKind::SubgroupId:
      b.capability(spv::Capability::GroupNonUniform);
      return builtin_scalar(spv::BuiltIn::SubgroupId);
    case IntrinsicKind::SubgroupCount:
      b.capability(spv::Capability::GroupNonUniform);
      return builtin_scalar(spv::BuiltIn::NumSubgroups);
    case IntrinsicKind::SubgroupBroadcast:
    case IntrinsicKind::SubgroupShuffle:
      // Broadcast is a shuffle: OpGroupNonUniformBroadcast wants a lane that
      // is dynamically uniform, which the compiler cannot prove.
      b.capability(spv::Capability::GroupNonUniformShuffle);
      return f.op(Op::OpGroupNonUniformShuffle, b.type_of(args[0]), {subgroup_scope(), args[0], args[1]});
    case IntrinsicKind::SubgroupBallot: {
      b.capability(spv::Capability::GroupNonUniformBallot);
      Id predicate = f.op(Op::OpINotEqual, k_.types.bool_type, {args[0], b.const_u32(0)});
      Id uvec4 = b.vector_type(u32, 4);
      Id ballot = f.op(Op::OpGroupNonUniformBallot, uvec4, {subgroup_scope(), predicate});
      Id low = f.op(Op::OpUConvert, k_.types.u64, {f.op(Op::OpCompositeExtract, u32, {ballot, literal(0)})});
      Id high = f.op(Op::OpUConvert, k_.types.u64, {f.op(Op::OpCompositeExtract, u32, {ballot, literal(1)})});
      high = f.op(Op::OpShiftLeftLogical, k_.types.u64, {high, b.const_u32(32)});
      return f.op(Op::OpBitwiseOr, k_.types.u64, {low, high});
    }
    case IntrinsicKind::SubgroupAll:
    case IntrinsicKind::SubgroupAny: {
      b.capability(spv::Capability::GroupNonUniformVote);
      Id predicate = f.op(Op::OpINotEqual, k_.types.bool_type, {args[0], b.const_u32(0)});
      Id vote = f.op(intrinsic.kind == IntrinsicKind::SubgroupAll ? Op::OpGroupNonUniformAll : Op::OpGroupNonUniformAny,
                     k_.types.bool_type, {subgroup_scope(), predicate});
      return f.op(Op::OpSelect, u32, {vote, b.const_u32(1), b.const_u32(0)});
    }
    case IntrinsicKind::SubgroupAdd:
      return group_arith(float_or_int(Op::OpGroupNonUniformFAdd, Op::OpGroupNonUniformIAdd),
                         spv::GroupOperation::Reduce);
    case IntrinsicKind::SubgroupInclusiveAdd:
      return group_arith(float_or_int(Op::OpGroupNonUniformFAdd, Op::OpGroupNonUniformIAdd),
                         spv::GroupOperation::InclusiveScan);
    case IntrinsicKind::SubgroupExclusiveAdd:
      return group_arith(float_or_int(Op::OpGroupNonUniformFAdd, Op::OpGroupNonUniformIAdd),
                         spv::GroupOperation::ExclusiveScan);
    case IntrinsicKind::SubgroupMinS: return group_arith(Op::OpGroupNonUniformSMin, spv::GroupOperation::Reduce);
    case IntrinsicKind::SubgroupMinU: return group_arith(Op::OpGroupNonUniformUMin, spv::GroupOperation::Reduce);
    case IntrinsicKind::SubgroupMinF: return group_arith(Op::OpGroupNonUniformFMin, spv::GroupOperation::Reduce);
    case IntrinsicKind::SubgroupMaxS: return group_arith(Op::OpGroupNonUniformSMax, spv::GroupOperation::Reduce);
    case IntrinsicKind::SubgroupMaxU: return group_arith(Op::OpGroupNonUniformUMax, spv::GroupOperation::Reduce);
    case IntrinsicKind::SubgroupMaxF: return group_arith(Op::OpGroupNonUniformFMax, spv::GroupOperation::Reduce);
    case IntrinsicKind::AtomicAdd:
    case IntrinsicKind::AtomicSub:
    case IntrinsicKind::AtomicAnd:
    case IntrinsicKind::AtomicOr:
    case IntrinsicKind::AtomicXor:
    case IntrinsicKind::AtomicMinS:
    case IntrinsicKind::AtomicMaxS:
    case IntrinsicKind::AtomicMinU:
    case IntrinsicKind::AtomicMaxU:
    case IntrinsicKind::AtomicExchange:
    case IntrinsicKind::AtomicCompareExchange:
    case IntrinsicKind::AtomicAddF32: {
      // AtomicOp lists the atomics in the catalog's order.
      static_assert(uint8_t(IntrinsicKind::AtomicCompareExchange) - uint8_t(IntrinsicKind::AtomicAdd) ==
                        uint8_t(AtomicOp::CompareExchange) &&
                    uint8_t(IntrinsicKind::AtomicAddF32) - uint8_t(IntrinsicKind::AtomicAdd) ==
                        uint8_t(AtomicOp::AddF32));
      AtomicOp atomic = AtomicOp(uint8_t(intrinsic.kind) - uint8_t(IntrinsicKind::AtomicAdd));
      const Id result_type = atomic == AtomicOp::AddF32 ? k_.types.f32() : u32;
      std::vector<Id> operands{atomic_helper(atomic), f.op(Op::OpUConvert, k_.types.u64, {args[0]})};
      for (size_t i = 1; i < args.size(); ++i) operands.push_back(args[i]);
      k_.uses_memory = true;
      if (!k_.shared.variable) return f.op(Op::OpFunctionCall, result_type, operands);
      // Inline for an aligned word in the shared range (a histogram's bins),
      // the helper for the rest (global memory, misaligned addresses, an
      // invocation that has trapped).
      ModuleBuilder& b = k_.b;
      auto [inside, relative] = shared_range_check32(k_, f, args[0], 0, 4);
      Id aligned = f.op(Op::OpIEqual, k_.types.bool_type,
                        {f.op(Op::OpBitwiseAnd, u32, {args[0], b.const_u32(3)}), b.const_u32(0)});
      // An address proven an aligned shared word (FunctionLowering::call).
      Id fast = unless_proven(k_, f, f.op(Op::OpLogicalAnd, k_.types.bool_type, {inside, aligned}), args[0], 0, 4);
      fast = f.op(Op::OpLogicalAnd, k_.types.bool_type,
                  {fast, f.op(Op::OpLogicalNot, k_.types.bool_type, {k_.helpers->trapped(f)})});
      Id result = f.variable(result_type);
      f.if_else(
          fast,
          [&] {
            Id pointer = shared_word_pointer_at(k_, f, f.op(Op::OpShiftRightLogical, u32, {relative, b.const_u32(2)}));
            const bool exchange = atomic == AtomicOp::CompareExchange;  // wasm order: (address, expected, replacement)
            Id bits = atomic_on(f, atomic, pointer, b.const_u32(uint32_t(spv::Scope::Workgroup)),
                                exchange ? args[2] : args[1], exchange ? args[1] : Id());
            f.store(result, atomic == AtomicOp::AddF32 ? f.op(Op::OpBitcast, k_.types.f32(), {bits}) : bits);
          },
          [&] { f.store(result, f.op(Op::OpFunctionCall, result_type, operands)); });
      return f.load(result_type, result);
    }
    case IntrinsicKind::ImageLoad2D: return k_.images->lower(f, Images::Op::Load2D, args);
    case IntrinsicKind::ImageLoad3D: return k_.images->lower(f, Images::Op::Load3D, args);
    case IntrinsicKind::ImageStore2D: return k_.images->lower(f, Images::Op::Store2D, args);
    case IntrinsicKind::ImageStore3D: return k_.images->lower(f, Images::Op::Store3D, args);
    case IntrinsicKind::ImageSample2D: return k_.images->lower(f, Images::Op::Sample2D, args);
    case IntrinsicKind::ImageSample3D: return k_.images->lower(f, Images::Op::Sample3D, args);
    case IntrinsicKind::ImageSize: return k_.images->lower(f, Images::Op::Size, args);
    case IntrinsicKind::ClockTimeGet: {
      // (id, precision, *time) -> errno. The precision asked for is moot:
      // the value is the launch's one instant.
      Id known = f.op(Op::OpULessThan, k_.types.bool_type, {args[0], b.const_u32(abi::kWasiClockMonotonic + 1)});
      f.if_else(known, [&] {
        Id monotonic = f.op(Op::OpIEqual, k_.types.bool_type, {args[0], b.const_u32(abi::kWasiClockMonotonic)});
        k_.uses_memory = true;
        k_.helpers->store(f, f.op(Op::OpUConvert, k_.types.u64, {args[2]}), k_.helpers->host_clock(f, monotonic), 8);
      });
      return f.op(Op::OpSelect, u32, {known, b.const_u32(abi::kWasiErrnoSuccess), b.const_u32(abi::kWasiErrnoInval)});
    }
  }
  return Id();
}

Id Intrinsics::atomic_helper(AtomicOp op) {
  auto it = atomic_ids_.find(op);
  if (it != atomic_ids_.end()) return it->second;
  Id id = k_.b.fresh_id();
  atomic_ids_.emplace(op, id);
  atomic_emitted_.emplace(op, false);
  return id;
}

void Intrinsics::emit_bodies() {
  for (auto& [op, done] : atomic_emitted_) {
    if (done) continue;
    done = true;
    emit_atomic(atomic_ids_.at(op), op);
  }
  for (auto& [op, done] : thread_atomic_emitted_) {
    if (done) continue;
    done = true;
    emit_thread_atomic(thread_atomic_ids_.at(op), op);
  }
}

// ---- Threads-proposal atomics (0xFE) -------------------------------------
//
// Each instruction calls a helper function (one per opcode) taking the
// effective address (u64) and the operands. The helper traps when the address
// is not naturally aligned (wasm's "unaligned atomic"; the ABI reports it as
// an out-of-bounds access), then works on the containing word with one SPIR-V
// atomic at Workgroup scope (shared memory) or Device scope (anything else).
// 8- and 16-bit accesses are a compare-exchange loop on the containing u32
// word; 64-bit accesses need Int64Atomics on device memory and trap in shared
// memory (a u32 array). wasm's atomics are sequentially consistent; they are
// emitted acquire/release (the GLSL450 memory model has nothing stronger
// that Vulkan accepts), which is what C11's seq_cst needs on one address.

namespace {

enum class ThreadAtomicKind : uint8_t { Load, Store, Add, Sub, And, Or, Xor, Exchange, CompareExchange, Notify };

ThreadAtomicKind thread_atomic_kind(wasm::Opcode op) {
  switch (wasm::info(op).access.kind) {
    case wasm::AccessKind::Load: return ThreadAtomicKind::Load;
    case wasm::AccessKind::Store: return ThreadAtomicKind::Store;
    case wasm::AccessKind::Add: return ThreadAtomicKind::Add;
    case wasm::AccessKind::Sub: return ThreadAtomicKind::Sub;
    case wasm::AccessKind::And: return ThreadAtomicKind::And;
    case wasm::AccessKind::Or: return ThreadAtomicKind::Or;
    case wasm::AccessKind::Xor: return ThreadAtomicKind::Xor;
    case wasm::AccessKind::Exchange: return ThreadAtomicKind::Exchange;
    case wasm::AccessKind::CompareExchange: return ThreadAtomicKind::CompareExchange;
    case wasm::AccessKind::Notify: return ThreadAtomicKind::Notify;
    case wasm::AccessKind::None:
    case wasm::AccessKind::Wait: break;
  }
  assert(false && "not a threads-proposal load, store, read-modify-write or notify");
  return ThreadAtomicKind::Load;
}

size_t thread_atomic_operand_count(ThreadAtomicKind kind) {
  return kind == ThreadAtomicKind::Load ? 0 : kind == ThreadAtomicKind::CompareExchange ? 2 : 1;
}

// Whether the value an atomic load, store or read-modify-write moves is an i64.
bool is_i64_instruction(wasm::Opcode op) {
  const wasm::OpcodeInfo& info = wasm::info(op);
  return (info.results.empty() ? info.params[info.params.size() - 1] : info.results[0]) == wasm::ValType::I64;
}

}  // namespace

void Intrinsics::lower_atomic_instruction(FunctionBuilder& f, const wasm::Instr& instr, std::vector<Id>& stack) {
  ModuleBuilder& b = k_.b;
  if (instr.op == wasm::Opcode::AtomicFence) {
    f.op_void(Op::OpMemoryBarrier, {b.const_u32(uint32_t(spv::Scope::Device)),
                                    b.const_u32(uint32_t(spv::MemorySemanticsMask::AcquireRelease) |
                                                uint32_t(spv::MemorySemanticsMask::UniformMemory) |
                                                uint32_t(spv::MemorySemanticsMask::WorkgroupMemory))});
    return;
  }
  ThreadAtomicKind kind = thread_atomic_kind(instr.op);
  size_t count = thread_atomic_operand_count(kind);
  std::vector<Id> operands(stack.end() - std::ptrdiff_t(count), stack.end());
  stack.resize(stack.size() - count);
  Id address = stack.back();
  stack.pop_back();
  Id ea = f.op(Op::OpUConvert, k_.types.u64, {address});
  if (instr.imm1 != 0) ea = f.op(Op::OpIAdd, k_.types.u64, {ea, b.const_u64(instr.imm1)});

  auto [it, inserted] = thread_atomic_ids_.emplace(instr.op, 0);
  if (inserted) {
    it->second = b.fresh_id();
    thread_atomic_emitted_.emplace(instr.op, false);
  }
  k_.uses_memory = true;
  std::vector<Id> call{it->second, ea};
  call.insert(call.end(), operands.begin(), operands.end());
  if (kind == ThreadAtomicKind::Store) {
    f.op(Op::OpFunctionCall, k_.types.void_type, call);
    return;
  }
  stack.push_back(f.op(Op::OpFunctionCall, is_i64_instruction(instr.op) ? k_.types.u64 : k_.types.u32, call));
}

Id Intrinsics::thread_atomic_on_word(FunctionBuilder& f, wasm::Opcode op, Id pointer, spv::Scope scope_value,
                                     uint32_t storage_semantics, uint32_t width, Id shift,
                                     std::span<const Id> operands) {
  ModuleBuilder& b = k_.b;
  ThreadAtomicKind kind = thread_atomic_kind(op);
  const Id word = width == 8 ? k_.types.u64 : k_.types.u32;
  const Id scope = b.const_u32(uint32_t(scope_value));
  const Id acquire = b.const_u32(uint32_t(spv::MemorySemanticsMask::Acquire) | storage_semantics);
  const Id release = b.const_u32(uint32_t(spv::MemorySemanticsMask::Release) | storage_semantics);
  const Id acq_rel = b.const_u32(uint32_t(spv::MemorySemanticsMask::AcquireRelease) | storage_semantics);
  if (width >= 4) {
    auto rmw = [&](Op opcode) { return f.op(opcode, word, {pointer, scope, acq_rel, operands[0]}); };
    switch (kind) {
      case ThreadAtomicKind::Load: return f.op(Op::OpAtomicLoad, word, {pointer, scope, acquire});
      case ThreadAtomicKind::Store: f.op_void(Op::OpAtomicStore, {pointer, scope, release, operands[0]}); return Id();
      case ThreadAtomicKind::Add: return rmw(Op::OpAtomicIAdd);
      case ThreadAtomicKind::Sub: return rmw(Op::OpAtomicISub);
      case ThreadAtomicKind::And: return rmw(Op::OpAtomicAnd);
      case ThreadAtomicKind::Or: return rmw(Op::OpAtomicOr);
      case ThreadAtomicKind::Xor: return rmw(Op::OpAtomicXor);
      case ThreadAtomicKind::Exchange: return rmw(Op::OpAtomicExchange);
      case ThreadAtomicKind::CompareExchange:  // wasm operands: (expected, replacement)
        return f.op(Op::OpAtomicCompareExchange, word, {pointer, scope, acq_rel, acquire, operands[1], operands[0]});
      // memory.atomic.wait is refused (spirv/lowerable.h), so no invocation
      // ever waits and notify wakes none: 0, once the address has passed the
      // alignment and bounds checks that lead here.
      case ThreadAtomicKind::Notify: return b.const_u32(0);
    }
    return Id();
  }
  // 8 or 16 bits of a u32 word.
  const Id u32 = k_.types.u32;
  const Id mask = b.const_u32(width == 1 ? 0xFFu : 0xFFFFu);
  auto extract = [&](Id bits) {
    return f.op(Op::OpBitwiseAnd, u32, {f.op(Op::OpShiftRightLogical, u32, {bits, shift}), mask});
  };
  if (kind == ThreadAtomicKind::Load) return extract(f.op(Op::OpAtomicLoad, u32, {pointer, scope, acquire}));
  Id old_word = compare_exchange_loop(f, pointer, scope, acquire, acq_rel, [&](Id current) {
    Id old = extract(current);
    Id value;
    switch (kind) {
      case ThreadAtomicKind::Store:
      case ThreadAtomicKind::Exchange: value = operands[0]; break;
      case ThreadAtomicKind::Add: value = f.op(Op::OpIAdd, u32, {old, operands[0]}); break;
      case ThreadAtomicKind::Sub: value = f.op(Op::OpISub, u32, {old, operands[0]}); break;
      case ThreadAtomicKind::And: value = f.op(Op::OpBitwiseAnd, u32, {old, operands[0]}); break;
      case ThreadAtomicKind::Or: value = f.op(Op::OpBitwiseOr, u32, {old, operands[0]}); break;
      case ThreadAtomicKind::Xor: value = f.op(Op::OpBitwiseXor, u32, {old, operands[0]}); break;
      case ThreadAtomicKind::CompareExchange: {
        // The expected value is wrapped to the access width; a failed compare
        // writes the old value back (no visible change).
        Id equal = f.op(Op::OpIEqual, k_.types.bool_type, {old, f.op(Op::OpBitwiseAnd, u32, {operands[0], mask})});
        value = f.op(Op::OpSelect, u32, {equal, operands[1], old});
        break;
      }
      case ThreadAtomicKind::Load:
      case ThreadAtomicKind::Notify: break;
    }
    Id field = f.op(Op::OpShiftLeftLogical, u32, {mask, shift});
    Id placed = f.op(Op::OpShiftLeftLogical, u32, {f.op(Op::OpBitwiseAnd, u32, {value, mask}), shift});
    return f.op(Op::OpBitwiseOr, u32, {f.op(Op::OpBitwiseAnd, u32, {current, f.op(Op::OpNot, u32, {field})}), placed});
  });
  return kind == ThreadAtomicKind::Store ? Id() : extract(old_word);
}

Id Intrinsics::compare_exchange_loop(FunctionBuilder& f, Id pointer, Id scope, Id load_semantics, Id exchange_semantics,
                                     const std::function<Id(Id)>& update) {
  const Id u32 = k_.types.u32;
  Id expected_var = f.variable(u32);
  f.store(expected_var, f.op(Op::OpAtomicLoad, u32, {pointer, scope, load_semantics}));
  f.loop([&](const FunctionBuilder::LoopBlocks& loop) {
    Id expected = f.load(u32, expected_var);
    Id desired = update(expected);
    // On failure the exchange only reads, so its semantics are the load's.
    Id seen =
        f.op(Op::OpAtomicCompareExchange, u32, {pointer, scope, exchange_semantics, load_semantics, desired, expected});
    f.store(expected_var, seen);
    f.branch_conditional(f.op(Op::OpIEqual, k_.types.bool_type, {seen, expected}), loop.merge, loop.continue_target);
  });
  return f.load(u32, expected_var);
}

void Intrinsics::emit_thread_atomic(Id id, wasm::Opcode op) {
  ModuleBuilder& b = k_.b;
  const uint32_t width = wasm::info(op).access.bytes;
  const bool is_i64 = is_i64_instruction(op);
  const ThreadAtomicKind kind = thread_atomic_kind(op);
  const Id value_type = is_i64 ? k_.types.u64 : k_.types.u32;
  std::vector<Id> params{k_.types.u64};
  for (size_t i = 0; i < thread_atomic_operand_count(kind); ++i) params.push_back(value_type);
  const bool returns = kind != ThreadAtomicKind::Store;
  FunctionBuilder f(b, id, returns ? value_type : k_.types.void_type, params);
  b.name(id, "wasmgpu." + std::string(wasm::info(op).text));
  if (width == 8) b.capability(spv::Capability::Int64Atomics);
  RuntimeHelpers& helpers = *k_.helpers;
  helpers.return_if_trapped(f);
  Id ea = f.param(0);
  // Operands on the word: u64 for 8-byte accesses, else u32.
  std::vector<Id> operands;
  for (size_t i = 1; i < params.size(); ++i) {
    Id operand = f.param(uint32_t(i));
    if (is_i64 && width < 8) operand = f.op(Op::OpUConvert, k_.types.u32, {operand});
    operands.push_back(operand);
  }
  auto finish = [&](Id result) {
    if (!returns) {
      f.return_default();
      return;
    }
    if (is_i64 && width < 8) result = f.op(Op::OpUConvert, k_.types.u64, {result});
    f.return_value(result);
  };
  if (width > 1) {
    Id misaligned = f.op(Op::OpINotEqual, k_.types.bool_type,
                         {f.op(Op::OpBitwiseAnd, k_.types.u64, {ea, b.const_u64(width - 1)}), b.const_u64(0)});
    f.if_else(misaligned, [&] { helpers.trap_and_return(f, abi::TrapKind::MemoryOutOfBounds); });
  }
  Id shift;
  if (width < 4) {
    shift = f.op(Op::OpUConvert, k_.types.u32, {f.op(Op::OpBitwiseAnd, k_.types.u64, {ea, b.const_u64(3)})});
    shift = f.op(Op::OpShiftLeftLogical, k_.types.u32, {shift, b.const_u32(3)});
  }
  if (k_.shared.variable) {
    Id inside = shared_contains(k_, f, ea, width);
    f.if_else(inside, [&] {
      if (width == 8) {  // shared memory is an array of u32 words
        helpers.trap_and_return(f, abi::TrapKind::MemoryOutOfBounds);
        return;
      }
      Id pointer = shared_word_pointer(k_, f, ea);
      finish(thread_atomic_on_word(f, op, pointer, spv::Scope::Workgroup,
                                   uint32_t(spv::MemorySemanticsMask::WorkgroupMemory), width, shift, operands));
    });
  }
  Id address = helpers.device_address(f, ea, b.const_u32(width));
  if (width < 4) address = f.op(Op::OpBitwiseAnd, k_.types.u64, {address, b.const_u64(~uint64_t(3))});
  Id pointer = k_.device_pointer(f, address, width == 8 ? k_.types.u64 : k_.types.u32);
  finish(thread_atomic_on_word(f, op, pointer, spv::Scope::Device, uint32_t(spv::MemorySemanticsMask::UniformMemory),
                               width, shift, operands));
  f.finish();
}

Id Intrinsics::atomic_on(FunctionBuilder& f, AtomicOp op, Id pointer, Id scope, Id value, Id comparator) {
  ModuleBuilder& b = k_.b;
  const Id u32 = k_.types.u32;
  Id relaxed = b.const_u32(0);
  auto rmw = [&](Op opcode) { return f.op(opcode, u32, {pointer, scope, relaxed, value}); };
  switch (op) {
    case AtomicOp::Add: return rmw(Op::OpAtomicIAdd);
    case AtomicOp::Sub: return rmw(Op::OpAtomicISub);
    case AtomicOp::And: return rmw(Op::OpAtomicAnd);
    case AtomicOp::Or: return rmw(Op::OpAtomicOr);
    case AtomicOp::Xor: return rmw(Op::OpAtomicXor);
    case AtomicOp::MinS: return rmw(Op::OpAtomicSMin);
    case AtomicOp::MaxS: return rmw(Op::OpAtomicSMax);
    case AtomicOp::MinU: return rmw(Op::OpAtomicUMin);
    case AtomicOp::MaxU: return rmw(Op::OpAtomicUMax);
    case AtomicOp::Exchange: return rmw(Op::OpAtomicExchange);
    case AtomicOp::CompareExchange:
      return f.op(Op::OpAtomicCompareExchange, u32, {pointer, scope, relaxed, relaxed, value, comparator});
    case AtomicOp::AddF32: {
      // Compare-exchange loop on the bits: portable, no float-atomic feature needed.
      return compare_exchange_loop(f, pointer, scope, relaxed, relaxed, [&](Id expected) {
        Id old_value = f.op(Op::OpBitcast, k_.types.f32(), {expected});
        Id sum = f.op(Op::OpFAdd, k_.types.f32(), {old_value, value});
        b.decorate(sum, spv::Decoration::NoContraction);
        return f.op(Op::OpBitcast, u32, {sum});
      });
    }
  }
  return Id();
}

// helper(u64 ea, value[, desired]) -> old value (u32, or f32 for AddF32).
// compare_exchange(ea, expected, desired) follows wasm's cmpxchg operand order.
void Intrinsics::emit_atomic(Id id, AtomicOp op) {
  ModuleBuilder& b = k_.b;
  const Id u32 = k_.types.u32;
  bool is_float = op == AtomicOp::AddF32;
  std::vector<Id> params{k_.types.u64, is_float ? k_.types.f32() : u32};
  if (op == AtomicOp::CompareExchange) params.push_back(u32);
  FunctionBuilder f(b, id, is_float ? k_.types.f32() : u32, params);
  b.name(id, "wasmgpu.atomic" + std::to_string(int(op)));
  RuntimeHelpers& helpers = *k_.helpers;
  helpers.return_if_trapped(f);  // a trapped invocation touches no memory
  Id ea = f.param(0);
  Id value = f.param(1), comparator;
  if (op == AtomicOp::CompareExchange) {  // wasm order: (address, expected, replacement)
    comparator = f.param(1);
    value = f.param(2);
  }
  auto result = [&](Id bits) { return is_float ? f.op(Op::OpBitcast, k_.types.f32(), {bits}) : bits; };
  Id misaligned = f.op(Op::OpINotEqual, k_.types.bool_type,
                       {f.op(Op::OpBitwiseAnd, k_.types.u64, {ea, b.const_u64(3)}), b.const_u64(0)});
  f.if_else(misaligned, [&] { helpers.trap_and_return(f, abi::TrapKind::MemoryOutOfBounds); });
  if (k_.shared.variable) {
    Id inside = shared_contains(k_, f, ea, 4);
    f.if_else(inside, [&] {
      Id pointer = shared_word_pointer(k_, f, ea);
      f.return_value(
          result(atomic_on(f, op, pointer, b.const_u32(uint32_t(spv::Scope::Workgroup)), value, comparator)));
    });
  }
  Id address = helpers.device_address(f, ea, b.const_u32(4));
  Id pointer = k_.device_pointer(f, address, u32);
  f.return_value(result(atomic_on(f, op, pointer, b.const_u32(uint32_t(spv::Scope::Device)), value, comparator)));
  f.finish();
}

}  // namespace wasmgpu::spirv
