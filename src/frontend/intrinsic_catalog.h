// The GPU programming model as wasm imports from the module "wasmgpu":
// invocation and workgroup ids, barriers, subgroup operations, atomics and
// images (include/wasmgpu.h wraps them for C and C++), and the one WASI call
// a kernel may make, clock_time_get. This is the one table of them: each
// import's module and name, its fixed wasm signature and what it does.
// The front end checks every call against it; each back end lowers a call by
// its kind (spirv/intrinsics.h, cpu/kernel_support.h).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "support/result.h"
#include "wasm/module.h"

namespace wasmgpu::frontend {

// The module every GPU facility is imported from.
inline constexpr std::string_view kIntrinsicModule = "wasmgpu";
// WASI's module: of its calls, kernels may make clock_time_get (the others
// are refused by name; printing goes through the kernels' libc).
inline constexpr std::string_view kWasiModule = "wasi_snapshot_preview1";

enum class IntrinsicKind : uint8_t {
  // Ids and sizes, per dimension (the argument) where they have one.
  GlobalId,
  LocalId,
  WorkgroupId,
  WorkgroupSize,
  WorkgroupCount,
  LocalIndex,
  Barrier,
  MemoryBarrier,
  WorkgroupMemoryBarrier,
  SubgroupSize,
  SubgroupInvocationId,
  SubgroupId,
  SubgroupCount,
  // Cross-lane subgroup operations, of i32 or f32 (the signature says which).
  SubgroupBroadcast,
  SubgroupShuffle,
  SubgroupBallot,
  SubgroupAll,
  SubgroupAny,
  SubgroupAdd,
  SubgroupMinS,
  SubgroupMinU,
  SubgroupMinF,
  SubgroupMaxS,
  SubgroupMaxU,
  SubgroupMaxF,
  SubgroupInclusiveAdd,
  SubgroupExclusiveAdd,
  // Atomics on the i32 (f32) at the address, the first argument; each returns
  // the old value.
  AtomicAdd,
  AtomicSub,
  AtomicAnd,
  AtomicOr,
  AtomicXor,
  AtomicMinS,
  AtomicMaxS,
  AtomicMinU,
  AtomicMaxU,
  AtomicExchange,
  AtomicCompareExchange,
  AtomicAddF32,
  // Images (abi/image_abi.h).
  ImageLoad2D,
  ImageLoad3D,
  ImageStore2D,
  ImageStore3D,
  ImageSample2D,
  ImageSample3D,
  ImageSize,
  // WASI clock_time_get(id, precision, *time) -> errno: the host's clock
  // when the launch was recorded, the same for all its invocations
  // (abi::kHostClockRealtime; docs/kernel-guide.md, "Clocks").
  ClockTimeGet,
};

inline bool is_atomic(IntrinsicKind kind) {
  return kind >= IntrinsicKind::AtomicAdd && kind <= IntrinsicKind::AtomicAddF32;
}

// A wasm signature of scalars, as a constant (signature()).
struct IntrinsicSignature {
  std::array<wasm::ValType, 8> param_types{};
  uint8_t param_count = 0;
  std::optional<wasm::ValType> result;

  std::span<const wasm::ValType> params() const { return {param_types.data(), param_count}; }
  bool matches(const wasm::FuncType& type) const;
};

constexpr IntrinsicSignature signature(std::initializer_list<wasm::ValType> params,
                                       std::optional<wasm::ValType> result = std::nullopt) {
  IntrinsicSignature out;
  out.param_count = uint8_t(params.size());
  out.result = result;
  size_t i = 0;
  for (wasm::ValType type : params) out.param_types[i++] = type;
  return out;
}

struct Intrinsic {
  std::string_view name;  // the import's name in module kIntrinsicModule (kWasiModule for ClockTimeGet)
  IntrinsicSignature signature;
  IntrinsicKind kind;
};

// Every intrinsic, in the order include/wasmgpu.h declares them.
std::span<const Intrinsic> intrinsics();

// The intrinsic that imported function `function_index` names (by module and
// name; its signature is check_import_call's to check), or null.
const Intrinsic* find_intrinsic(const wasm::Module& module, uint32_t function_index);

// Ok when imported function `function_index` is a known wasmgpu intrinsic
// with the right signature, else why `caller` cannot call it.
Status check_import_call(const wasm::Module& module, uint32_t caller, uint32_t function_index);

}  // namespace wasmgpu::frontend
