#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

const std::string kHeader = std::string("-I") + WASMGPU_INCLUDE_DIR;

// Every facility of include/wasmgpu.h in one kernel: the output must validate.
constexpr const char* kEveryIntrinsic = R"(
#include <wasmgpu.h>
WASMGPU_SHARED float tile[8][9];
WASMGPU_SHARED int counters[4];
WASMGPU_SHARED unsigned char bytes[16];
WASMGPU_KERNEL(k) void k(int i, float *out, int *ints, unsigned long long *ballots) {
  unsigned l = wasmgpu_local_index();
  tile[l % 8][l / 8] = out[i];
  bytes[l % 16] = (unsigned char)i;
  wasmgpu_barrier();
  wasmgpu_memory_barrier();
  wasmgpu_workgroup_memory_barrier();
  float f = tile[l / 8][l % 8] + bytes[(l + 1) % 16];
  f += wasmgpu_subgroup_add_f32(f) + wasmgpu_subgroup_min_f32(f) + wasmgpu_subgroup_max_f32(f);
  f += wasmgpu_subgroup_inclusive_add_f32(f) + wasmgpu_subgroup_exclusive_add_f32(f);
  f += wasmgpu_subgroup_broadcast_f32(f, 0) + wasmgpu_subgroup_shuffle_f32(f, l ^ 1);
  int n = (int)(wasmgpu_global_id(0) + wasmgpu_global_id(1) + wasmgpu_local_id(2) + wasmgpu_workgroup_id(0) +
                wasmgpu_workgroup_size(1) + wasmgpu_workgroup_count(i & 3) + wasmgpu_subgroup_size() +
                wasmgpu_subgroup_invocation_id() + wasmgpu_subgroup_id() + wasmgpu_subgroup_count());
  n += wasmgpu_subgroup_add_i32(n) + wasmgpu_subgroup_min_i32(n) + (int)wasmgpu_subgroup_min_u32(n) +
       wasmgpu_subgroup_max_i32(n) + (int)wasmgpu_subgroup_max_u32(n) + wasmgpu_subgroup_inclusive_add_i32(n) +
       wasmgpu_subgroup_exclusive_add_i32(n) + wasmgpu_subgroup_broadcast_i32(n, 1) +
       wasmgpu_subgroup_shuffle_i32(n, 2) + wasmgpu_subgroup_all(n) + wasmgpu_subgroup_any(n);
  ballots[i] = wasmgpu_subgroup_ballot(n & 1);
  n += wasmgpu_atomic_add(&counters[0], 1) + wasmgpu_atomic_sub(&ints[0], 1) + wasmgpu_atomic_and(&ints[1], n) +
       wasmgpu_atomic_or(&ints[2], n) + wasmgpu_atomic_xor(&ints[3], n) + wasmgpu_atomic_min(&ints[4], n) +
       wasmgpu_atomic_max(&counters[1], n) + (int)wasmgpu_atomic_min_u((unsigned *)&ints[5], n) +
       (int)wasmgpu_atomic_max_u((unsigned *)&ints[6], n) + wasmgpu_atomic_exchange(&ints[7], n) +
       wasmgpu_atomic_compare_exchange(&ints[8], n, 3);
  f += wasmgpu_atomic_add_f32(&out[0], 1.0f) + wasmgpu_atomic_add_f32(&tile[0][0], 2.0f);
  out[i] = f + (float)n;
}
)";

TEST(Intrinsics, EveryIntrinsicValidates) {
  for (const char* opt : {"-O0", "-O2"}) {
    CompiledKernel k = expect_compiles(c_to_wasm(kEveryIntrinsic, opt, kHeader), "k");
    EXPECT_EQ(k.info.shared_memory_bytes, 8u * 9 * 4 + 4 * 4 + 16) << opt;
    EXPECT_TRUE(k.info.uses_barriers);
    std::string text = disassembly(k);
    for (const char* expected : {"OpControlBarrier", "OpGroupNonUniformFAdd", "OpGroupNonUniformBallot",
                                 "OpGroupNonUniformShuffle", "OpAtomicCompareExchange", "OpAtomicSMin", "Workgroup"})
      EXPECT_NE(text.find(expected), std::string::npos) << expected << " at " << opt;
  }
}

TEST(Intrinsics, NoSharedMemoryWithoutSharedVariables) {
  CompiledKernel k = expect_compiles(c_to_wasm(R"(
#include <wasmgpu.h>
WASMGPU_KERNEL(k) void k(int i, int *out) { out[i] = (int)wasmgpu_local_id(0); }
)",
                                               "-O2", kHeader),
                                     "k");
  EXPECT_EQ(k.info.shared_memory_bytes, 0u);
  EXPECT_FALSE(k.info.uses_barriers);
}

TEST(Intrinsics, RefusesOtherImportsNamingImportAndFunction) {
  std::string error = compile_error(c_to_wasm(R"(
// What clang emits for an undefined libm call when linked with --allow-undefined.
__attribute__((import_module("env"), import_name("expf"))) float expf(float);
__attribute__((noinline)) float helper(float x) { return expf(x); }
__attribute__((export_name("k"))) void k(int i, float *out) { out[i] = helper(out[i]); }
)",
                                              "-O2"),
                                    "k");
  EXPECT_NE(error.find("function helper calls imported function env.expf"), std::string::npos) << error;
}

TEST(Intrinsics, RefusesUnknownWasmgpuImport) {
  std::string error = compile_error(wat_to_wasm(R"((module
    (import "wasmgpu" "warp_vote" (func $vote (param i32) (result i32)))
    (func $k (export "k") (param i32) (drop (call $vote (local.get 0))))))"),
                                    "k");
  EXPECT_NE(error.find("function k calls imported function wasmgpu.warp_vote, which is not a wasmgpu intrinsic"),
            std::string::npos)
      << error;
}

TEST(Intrinsics, RefusesWrongSignature) {
  std::string error = compile_error(wat_to_wasm(R"((module
    (import "wasmgpu" "barrier" (func $barrier (param i32)))
    (func $k (export "k") (param i32) (call $barrier (local.get 0)))))"),
                                    "k");
  EXPECT_NE(error.find("function k calls imported function wasmgpu.barrier with signature (i32) -> ()"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("wasmgpu.barrier has signature () -> ()"), std::string::npos) << error;
}

TEST(Intrinsics, RefusesInitialisedSharedMemory) {
  std::string error = compile_error(c_to_wasm(R"(
#include <wasmgpu.h>
WASMGPU_SHARED int table[4] = {1, 2, 3, 4};
WASMGPU_KERNEL(k) void k(int i, int *out) { out[i] = table[i & 3]; }
)",
                                              "-O0", kHeader),
                                    "k");
  EXPECT_NE(error.find("initial values"), std::string::npos) << error;
}

}  // namespace
}  // namespace wasmgpu::spirv::testing

namespace wasmgpu::spirv::testing {
namespace {

// memset/memcpy on shared memory with -mbulk-memory: memory.fill/copy reach
// the shared path; sub-word stores take the atomic byte path.
TEST(Intrinsics, BulkMemoryAndBytesOnSharedMemoryValidate) {
  CompiledKernel k = expect_compiles(c_to_wasm(R"(
#include <wasmgpu.h>
WASMGPU_SHARED unsigned char scratch[64];
WASMGPU_SHARED short halves[32];
WASMGPU_KERNEL(k) void k(int i, unsigned char *out) {
  __builtin_memset(scratch, i, sizeof scratch);
  halves[i & 31] = (short)i;
  wasmgpu_barrier();
  __builtin_memcpy(out + 64 * i, scratch, sizeof scratch);
  out[i] = (unsigned char)halves[(i + 1) & 31];
}
)",
                                               "-O2", kHeader + " -mbulk-memory"),
                                     "k");
  EXPECT_EQ(k.info.shared_memory_bytes, 128u);
  std::string text = disassembly(k);
  EXPECT_NE(text.find("OpAtomicAnd"), std::string::npos);
  EXPECT_NE(text.find("OpAtomicOr"), std::string::npos);
}

}  // namespace
}  // namespace wasmgpu::spirv::testing
