#include "frontend/intrinsic_catalog.h"

#include <algorithm>
#include <string>

namespace wasmgpu::frontend {
namespace {

using K = IntrinsicKind;
using wasm::ValType;
constexpr ValType I = ValType::I32;
constexpr ValType L = ValType::I64;
constexpr ValType F = ValType::F32;

constexpr Intrinsic kIntrinsics[] = {
    {"global_id", signature({I}, I), K::GlobalId},
    {"local_id", signature({I}, I), K::LocalId},
    {"workgroup_id", signature({I}, I), K::WorkgroupId},
    {"workgroup_size", signature({I}, I), K::WorkgroupSize},
    {"workgroup_count", signature({I}, I), K::WorkgroupCount},
    {"local_index", signature({}, I), K::LocalIndex},
    {"barrier", signature({}), K::Barrier},
    {"memory_barrier", signature({}), K::MemoryBarrier},
    {"workgroup_memory_barrier", signature({}), K::WorkgroupMemoryBarrier},
    {"subgroup_size", signature({}, I), K::SubgroupSize},
    {"subgroup_invocation_id", signature({}, I), K::SubgroupInvocationId},
    {"subgroup_id", signature({}, I), K::SubgroupId},
    {"subgroup_count", signature({}, I), K::SubgroupCount},
    {"subgroup_broadcast_i32", signature({I, I}, I), K::SubgroupBroadcast},
    {"subgroup_broadcast_f32", signature({F, I}, F), K::SubgroupBroadcast},
    {"subgroup_shuffle_i32", signature({I, I}, I), K::SubgroupShuffle},
    {"subgroup_shuffle_f32", signature({F, I}, F), K::SubgroupShuffle},
    {"subgroup_ballot", signature({I}, L), K::SubgroupBallot},
    {"subgroup_all", signature({I}, I), K::SubgroupAll},
    {"subgroup_any", signature({I}, I), K::SubgroupAny},
    {"subgroup_add_i32", signature({I}, I), K::SubgroupAdd},
    {"subgroup_add_f32", signature({F}, F), K::SubgroupAdd},
    {"subgroup_min_i32", signature({I}, I), K::SubgroupMinS},
    {"subgroup_min_u32", signature({I}, I), K::SubgroupMinU},
    {"subgroup_min_f32", signature({F}, F), K::SubgroupMinF},
    {"subgroup_max_i32", signature({I}, I), K::SubgroupMaxS},
    {"subgroup_max_u32", signature({I}, I), K::SubgroupMaxU},
    {"subgroup_max_f32", signature({F}, F), K::SubgroupMaxF},
    {"subgroup_inclusive_add_i32", signature({I}, I), K::SubgroupInclusiveAdd},
    {"subgroup_inclusive_add_f32", signature({F}, F), K::SubgroupInclusiveAdd},
    {"subgroup_exclusive_add_i32", signature({I}, I), K::SubgroupExclusiveAdd},
    {"subgroup_exclusive_add_f32", signature({F}, F), K::SubgroupExclusiveAdd},
    {"atomic_add_i32", signature({I, I}, I), K::AtomicAdd},
    {"atomic_sub_i32", signature({I, I}, I), K::AtomicSub},
    {"atomic_and_i32", signature({I, I}, I), K::AtomicAnd},
    {"atomic_or_i32", signature({I, I}, I), K::AtomicOr},
    {"atomic_xor_i32", signature({I, I}, I), K::AtomicXor},
    {"atomic_min_i32", signature({I, I}, I), K::AtomicMinS},
    {"atomic_max_i32", signature({I, I}, I), K::AtomicMaxS},
    {"atomic_min_u32", signature({I, I}, I), K::AtomicMinU},
    {"atomic_max_u32", signature({I, I}, I), K::AtomicMaxU},
    {"atomic_exchange_i32", signature({I, I}, I), K::AtomicExchange},
    {"atomic_compare_exchange_i32", signature({I, I, I}, I), K::AtomicCompareExchange},
    {"atomic_add_f32", signature({I, F}, F), K::AtomicAddF32},
    {"image_load_2d", signature({I, I, I, I}), K::ImageLoad2D},
    {"image_load_3d", signature({I, I, I, I, I}), K::ImageLoad3D},
    {"image_store_2d", signature({I, I, I, F, F, F, F}), K::ImageStore2D},
    {"image_store_3d", signature({I, I, I, I, F, F, F, F}), K::ImageStore3D},
    {"image_sample_2d", signature({I, I, I, F, F, F}), K::ImageSample2D},
    {"image_sample_3d", signature({I, I, I, F, F, F, F}), K::ImageSample3D},
    {"image_size", signature({I, I}, I), K::ImageSize},
};

// The WASI call kernels may make, imported from kWasiModule.
constexpr Intrinsic kClockTimeGet = {"clock_time_get", signature({I, L, I}, I), K::ClockTimeGet};

std::string type_name(ValType type) {
  switch (type) {
    case ValType::I32: return "i32";
    case ValType::I64: return "i64";
    case ValType::F32: return "f32";
    case ValType::F64: return "f64";
    default: return "?";
  }
}

// "(i32, i32) -> i32".
std::string readable(std::span<const ValType> params, std::span<const ValType> results) {
  auto names = [](std::span<const ValType> types) {
    std::string out;
    for (ValType type : types) {
      if (!out.empty()) out += ", ";
      out += type_name(type);
    }
    return out;
  };
  std::string result_names = names(results);
  return "(" + names(params) + ") -> " + (result_names.empty() ? "()" : result_names);
}

std::string readable(const IntrinsicSignature& signature) {
  return readable(signature.params(),
                  signature.result ? std::span<const ValType>(&*signature.result, 1) : std::span<const ValType>());
}

}  // namespace

bool IntrinsicSignature::matches(const wasm::FuncType& type) const {
  std::span<const ValType> expected = params();
  if (!std::equal(type.params.begin(), type.params.end(), expected.begin(), expected.end())) return false;
  return result ? type.results.size() == 1 && type.results[0] == *result : type.results.empty();
}

std::span<const Intrinsic> intrinsics() { return kIntrinsics; }

const Intrinsic* find_intrinsic(const wasm::Module& module, uint32_t function_index) {
  const wasm::Import* import = module.imported_function(function_index);
  if (import && import->module == kWasiModule && import->name == kClockTimeGet.name) return &kClockTimeGet;
  if (!import || import->module != kIntrinsicModule) return nullptr;
  for (const Intrinsic& intrinsic : kIntrinsics)
    if (intrinsic.name == import->name) return &intrinsic;
  return nullptr;
}

Status check_import_call(const wasm::Module& module, uint32_t caller, uint32_t function_index) {
  const wasm::Import* import = module.imported_function(function_index);
  if (!import) return {};
  std::string who =
      "function " + module.function_name(caller) + " calls imported function " + import->module + "." + import->name;
  const bool wasi_clock = import->module == kWasiModule && import->name == kClockTimeGet.name;
  // WASI: kernels built with `wasmgpu cc` (or the CMake kernel rule) print
  // through wasmgpu_runtime.c, which serves fd_write itself; clock_time_get
  // is an intrinsic; every other WASI call is refused by name.
  if (import->module.starts_with("wasi_") && !wasi_clock)
    return make_error(ErrorCode::Compile,
                      who +
                          ": WASI calls do not run on the GPU (kernels print with printf, puts, putchar and write to "
                          "fd 1 and 2, and assert and abort, from the libc of `wasmgpu cc`, and read the clock with "
                          "clock_gettime or time; docs/kernel-guide.md, \"Printing and assert\" and \"Clocks\")");
  // AssemblyScript imports env.abort for failed assertions and bounds checks
  // unless told to trap instead (docs/kernel-guide.md, "AssemblyScript kernels").
  if (import->module == "env" && import->name == "abort")
    return make_error(ErrorCode::Compile,
                      who +
                          ": the GPU cannot call the host's abort; for AssemblyScript, build with `--use abort=` "
                          "(a failed check then traps as wasm's unreachable), or define abort in the kernel");
  if (import->module != kIntrinsicModule && !wasi_clock)
    return make_error(ErrorCode::Compile,
                      who +
                          " (only wasmgpu.* imports run on the GPU; other imports, such as libc or WASI, "
                          "must be provided by code compiled into the kernel)");
  const Intrinsic* intrinsic = find_intrinsic(module, function_index);
  if (!intrinsic)
    return make_error(ErrorCode::Compile, who + ", which is not a wasmgpu intrinsic (see include/wasmgpu.h)");
  const wasm::FuncType& actual = module.function_type(function_index);
  if (!intrinsic->signature.matches(actual))
    return make_error(ErrorCode::Compile, who + " with signature " + readable(actual.params, actual.results) +
                                              (wasi_clock ? "; WASI's " : "; wasmgpu.") + import->name +
                                              " has signature " + readable(intrinsic->signature));
  return {};
}

}  // namespace wasmgpu::frontend
