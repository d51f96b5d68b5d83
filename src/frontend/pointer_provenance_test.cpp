#include "frontend/pointer_provenance.h"

#include <gtest/gtest.h>

#include "spirv/test_util.h"
#include "wasm/decoder.h"
#include "wasm/opcode.h"

namespace wasmgpu::frontend {
namespace {

// Checked through what the SPIR-V back end makes of the facts.
using spirv::AccessPathCounts;
using spirv::compile_calls;
using spirv::CompiledKernel;
namespace testing = spirv::testing;

using Base = PointerFact::Base;

// The facts of every memory access in the module's first function, in order.
std::vector<PointerFact> access_facts(std::string_view wat, const ProvenanceOptions& options = {}) {
  auto module = wasm::decode(testing::wat_to_wasm(wat));
  if (!module.ok()) {
    ADD_FAILURE() << module.error().to_string();
    return {};
  }
  const uint32_t function = module->imported_functions;
  std::vector<PointerFact> facts = analyse_pointer_provenance(*module, function, options);
  std::vector<PointerFact> result;
  const auto& body = module->functions.at(0).body;
  for (size_t i = 0; i < body.size(); ++i)
    if (wasm::info(body[i].op).immediate == wasm::ImmediateKind::MemArg) result.push_back(facts[i]);
  return result;
}

TEST(PointerProvenance, IndexedAccessesKeepTheirParameterAndAlignment) {
  auto facts = access_facts(R"((module (memory 1)
    (func (param $i i32) (param $x i32) (param $y i32)
      (f32.store (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 2)))
        (f32.load offset=8 (i32.add (i32.mul (local.get $i) (i32.const 12)) (local.get $x)))))))");
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].base, Base::Param);  // the load: x + i*12 (+8)
  EXPECT_EQ(facts[0].param, 1u);
  EXPECT_EQ(facts[0].alignment(8), 4u);
  EXPECT_EQ(facts[0].alignment(0), 4u);
  EXPECT_EQ(facts[0].alignment(2), 2u);
  EXPECT_EQ(facts[1].base, Base::Param);  // the store: y + i*4
  EXPECT_EQ(facts[1].param, 2u);
  EXPECT_EQ(facts[1].alignment(0), 4u);
}

TEST(PointerProvenance, LoopsReachAFixedPoint) {
  // p walks from x in steps of 8, q in steps of an unknown multiple of 4,
  // r is reset to another parameter on one path.
  auto facts = access_facts(R"((module (memory 1)
    (func (param $i i32) (param $x i32) (param $y i32) (param $n i32) (local $p i32) (local $q i32) (local $r i32)
      (local.set $p (local.get $x))
      (local.set $q (local.get $x))
      (local.set $r (local.get $x))
      (block (loop
        (br_if 1 (i32.ge_u (local.get $p) (local.get $n)))
        (drop (i64.load (local.get $p)))
        (drop (f32.load (local.get $q)))
        (drop (i32.load (local.get $r)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (local.set $q (i32.add (local.get $q) (i32.shl (local.get $n) (i32.const 2))))
        (if (local.get $i) (then (local.set $r (local.get $y))))
        (br 0)))
      (drop (i64.load (local.get $p))))))");
  ASSERT_EQ(facts.size(), 4u);
  EXPECT_EQ(facts[0].base, Base::Param);
  EXPECT_EQ(facts[0].alignment(0), 8u);
  EXPECT_EQ(facts[1].base, Base::Param);
  EXPECT_EQ(facts[1].alignment(0), 4u);
  EXPECT_EQ(facts[2].base, Base::Unknown);  // x or y
  EXPECT_EQ(facts[3].base, Base::Param);    // after the loop
  EXPECT_EQ(facts[3].alignment(0), 8u);
}

TEST(PointerProvenance, LoadedCombinedAndDeadValuesAreNotPointers) {
  auto facts = access_facts(R"((module (memory 1)
    (func (param $i i32) (param $x i32) (param $y i32)
      (drop (i32.load (i32.load (local.get $x))))
      (drop (i32.load (i32.add (local.get $x) (local.get $y))))
      (drop (i32.load (i32.sub (local.get $y) (local.get $x))))
      (drop (i32.load (select (local.get $x) (local.get $y) (local.get $i))))
      (drop (i32.load (i32.and (local.get $x) (i32.const -16))))
      (drop (i32.load (local.get $y))))))");
  ASSERT_EQ(facts.size(), 7u);
  EXPECT_EQ(facts[0].base, Base::Param);  // the inner load
  EXPECT_EQ(facts[1].base, Base::Unknown);
  EXPECT_EQ(facts[2].base, Base::Param);  // x + y: a guess (x), with no alignment claimed
  EXPECT_EQ(facts[2].known_bits, 0u);
  EXPECT_EQ(facts[3].base, Base::Unknown);
  EXPECT_EQ(facts[4].base, Base::Unknown);
  EXPECT_EQ(facts[5].base, Base::Absolute);  // a number now, 16-aligned
  EXPECT_EQ(facts[5].alignment(0), 16u);
  EXPECT_EQ(facts[6].base, Base::Param);
}

TEST(PointerProvenance, IntegerParametersAddedToPointersAreIndices) {
  // n is compared for order, never used as an address itself: x + n is
  // x-based; i is a number by the caller's word (a kernel's index).
  const char* wat = R"((module (memory 1)
    (func (param $i i32) (param $x i32) (param $n i32) (param $m i32)
      (drop (i32.lt_u (local.get $i) (local.get $n)))
      (drop (i32.load8_u (i32.add (local.get $x) (local.get $n))))
      (drop (i32.load8_u (i32.add (local.get $i) (local.get $x))))
      (drop (i32.load8_u (i32.add (local.get $m) (local.get $x)))))))";
  auto facts =
      access_facts(wat, {.stack_pointer = std::nullopt, .stack_pointer_aligned = false, .number_params = {true}});
  ASSERT_EQ(facts.size(), 3u);
  EXPECT_EQ(facts[0].base, Base::Param);
  EXPECT_EQ(facts[0].param, 1u);
  EXPECT_EQ(facts[1].base, Base::Param);
  EXPECT_EQ(facts[1].param, 1u);
  // Nothing tells which of m and x is the pointer: either may be the guess
  // (a wrong guess costs speed, never correctness: the access then fails the
  // region check and takes the general path), with nothing known of the low bits.
  EXPECT_EQ(facts[2].base, Base::Param);
  EXPECT_TRUE(facts[2].param == 1u || facts[2].param == 3u) << facts[2].param;
  EXPECT_EQ(facts[2].known_bits, 0u);
  // Without the caller's word, i is still compared for order: a number.
  EXPECT_EQ(access_facts(wat)[1].base, Base::Param);
}

TEST(PointerProvenance, PointerDifferencesAndBlockResultsAreTracked) {
  auto facts = access_facts(R"((module (memory 1)
    (func (param $i i32) (param $x i32) (param $y i32) (local $d i32)
      ;; (x + 8) - x is the absolute 8: y + 8 stays y-based and 8-aligned
      (local.set $d (i32.sub (i32.add (local.get $x) (i32.const 8)) (local.get $x)))
      (drop (i64.load (i32.add (local.get $y) (local.get $d))))
      ;; a block result joins two y-based values 4 apart
      (drop (f32.load (block (result i32)
        (br_if 0 (i32.add (local.get $y) (i32.const 4)) (local.get $i))
        (drop)
        (local.get $y)))))))");
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].base, Base::Param);
  EXPECT_EQ(facts[0].param, 2u);
  EXPECT_EQ(facts[0].alignment(0), 8u);
  EXPECT_EQ(facts[1].base, Base::Param);
  EXPECT_EQ(facts[1].alignment(0), 4u);
}

TEST(PointerProvenance, StackPointerValuesAreStackBased) {
  const char* wat = R"((module (memory 1) (global $sp (mut i32) (i32.const 65536))
    (func (param $i i32) (local $frame i32)
      (local.set $frame (i32.sub (global.get $sp) (i32.const 32)))
      (global.set $sp (local.get $frame))
      (i32.store offset=12 (local.get $frame) (local.get $i))
      (global.set $sp (i32.add (local.get $frame) (i32.const 32)))))
    )";
  auto facts = access_facts(wat, {.stack_pointer = 0, .stack_pointer_aligned = true, .number_params = {}});
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].base, Base::Stack);
  EXPECT_EQ(facts[0].alignment(12), 4u);
  EXPECT_EQ(facts[0].alignment(0), 16u);
  auto module = wasm::decode(testing::wat_to_wasm(wat));
  ASSERT_TRUE(module.ok());
  EXPECT_TRUE(stack_pointer_stays_aligned(*module, {0}, 0, 65536));
  EXPECT_FALSE(stack_pointer_stays_aligned(*module, {0}, 0, 65532));
  auto odd = wasm::decode(testing::wat_to_wasm(R"((module (global $sp (mut i32) (i32.const 65536))
    (func (global.set $sp (i32.sub (global.get $sp) (i32.const 20))))))"));
  ASSERT_TRUE(odd.ok());
  EXPECT_FALSE(stack_pointer_stays_aligned(*odd, {0}, 0, 65536));
}

// The compiler counts the access sites that take the pointer-parameter paths.
TEST(PointerProvenance, KernelAccessesThroughParametersTakeTheParameterPaths) {
  const char* wat = R"((module (memory 1)
    (func (export "k") (param $i i32) (param $x i32) (param $y i32) (param $n i32) (local $p i32)
      (f32.store (i32.add (local.get $y) (i32.shl (local.get $i) (i32.const 2)))
        (f32.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $p (local.get $x))
      (block (loop
        (br_if 1 (i32.ge_u (local.get $p) (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 3)))))
        (drop (i64.load (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br 0)))
      (drop (i32.load offset=2 (local.get $x)))
      (drop (i32.load (i32.load (local.get $x))))
      (drop (i32.load8_u (i32.add (local.get $x) (local.get $n))))
      (i32.store16 (local.get $y) (i32.const 7))
      (drop (i32.load (i32.const 64)))))
    )";
  CompiledKernel kernel = testing::compile_wat(wat);
  const AccessPathCounts& paths = kernel.info.memory_access_paths;
  EXPECT_EQ(paths.parameter, 5u);            // both f32s, the i64 walk, the inner i32, the byte
  EXPECT_EQ(paths.parameter_unaligned, 2u);  // offset=2, and the 16-bit store
  EXPECT_EQ(paths.translated, 1u);           // the loaded pointer
  EXPECT_EQ(paths.direct, 1u);
  EXPECT_EQ(paths.total(), 9u);
  // The same function as a vectorised call has no launch-wide arguments.
  auto module = wasm::decode(testing::wat_to_wasm(wat));
  ASSERT_TRUE(module.ok());
  std::vector<std::string> exports{"k"};
  auto calls = compile_calls(*module, exports);
  ASSERT_TRUE(calls.ok()) << calls.error().to_string();
  EXPECT_EQ(calls->info.memory_access_paths.parameter + calls->info.memory_access_paths.parameter_unaligned, 0u);
  EXPECT_EQ(calls->info.memory_access_paths.translated, 8u);
}

// An 8-byte access proven 8-aligned is one u64 load or store, not two words.
TEST(PointerProvenance, AlignedEightByteAccessesAreOneTypedAccess) {
  CompiledKernel kernel = testing::expect_compiles(testing::c_to_wasm(R"(
#include <wasmgpu.h>
WASMGPU_KERNEL(k) void k(int i, const double *x, double *y) { y[i] = 2.0 * x[i]; }
)",
                                                                      "-O2", std::string("-I") + WASMGPU_INCLUDE_DIR),
                                                   "k");
  EXPECT_EQ(kernel.info.memory_access_paths.parameter, 2u);
  // The kernel function's own code (the general-path helpers after it have typed accesses too).
  const std::string all = testing::disassembly(kernel);
  const size_t start = all.find("%k = OpFunction");
  ASSERT_NE(start, std::string::npos) << all;
  const std::string text = all.substr(start, all.find("OpFunctionEnd", start) - start);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("Aligned 8"), 2u) << "one 8-byte load and one 8-byte store\n" << text;
  EXPECT_EQ(count("Aligned 4"), 0u) << text;
}

// Indexed static data and shared variables: one compare against the shared
// range, one against the module memory outside the stack and shared ranges.
TEST(PointerProvenance, IndexedStaticAndSharedDataTakeTheIndexedPath) {
  CompiledKernel kernel = testing::expect_compiles(testing::c_to_wasm(R"(
#include <wasmgpu.h>
static const float kTable[8] = {1, 2, 3, 4, 5, 6, 7, 8};
WASMGPU_SHARED float tile[64];
WASMGPU_KERNEL(k) void k(int i, float *out) {
  unsigned l = wasmgpu_local_index();
  tile[l] = kTable[i & 7];
  wasmgpu_barrier();
  out[i] = tile[63 - l] + tile[l ^ 1];
}
)",
                                                                      "-O2", std::string("-I") + WASMGPU_INCLUDE_DIR),
                                                   "k");
  const AccessPathCounts& paths = kernel.info.memory_access_paths;
  EXPECT_EQ(paths.indexed, 4u);  // the table, three tile accesses
  EXPECT_EQ(paths.parameter, 1u);
  EXPECT_EQ(paths.translated, 0u);
}

// Ranges (value_range.h) of the addresses: from the local index under a
// workgroup-size assumption, from a counted loop (loop_induction.h), from a
// byte loaded; a loop that is not counted gives up its variables' ranges.
TEST(PointerProvenance, RangesOfWorkgroupIndicesCountedLoopsAndBytes) {
  const char* wat = R"((module
    (import "wasmgpu" "local_index" (func $local_index (result i32)))
    (memory 1)
    (func (param $i i32) (param $n i32) (local $l i32) (local $k i32) (local $row i32) (local $j i32)
      (local.set $l (call $local_index))
      (drop (i32.load offset=1024 (i32.shl (local.get $l) (i32.const 2))))
      (local.set $row (i32.add (i32.shl (i32.and (local.get $l) (i32.const 7)) (i32.const 5)) (i32.const 2048)))
      (local.set $k (i32.const -32))
      (loop
        (drop (i32.load (i32.add (local.get $row) (local.get $k))))
        (br_if 0 (local.tee $k (i32.add (local.get $k) (i32.const 4)))))
      (local.set $j (i32.const 0))
      (loop
        (drop (i32.load (i32.add (local.get $row) (local.get $j))))
        (br_if 0 (i32.ne (local.tee $j (i32.add (local.get $j) (i32.const 4))) (local.get $n))))
      (drop (i32.load (i32.add (i32.shl (i32.load8_u (local.get $i)) (i32.const 2)) (i32.const 4096))))
      (drop (i32.load (i32.or (i32.shl (local.get $l) (i32.const 6)) (i32.and (local.get $i) (i32.const 63)))))))
  )";
  auto bounds = [](const PointerFact& fact) { return fact.range.unsigned_bounds(); };
  using Bounds = std::pair<uint32_t, uint32_t>;

  auto facts = access_facts(wat, {.stack_pointer = std::nullopt,
                                  .stack_pointer_aligned = false,
                                  .number_params = {},
                                  .max_workgroup_invocations = 256,
                                  .ranges = true});
  ASSERT_EQ(facts.size(), 6u);
  EXPECT_EQ(bounds(facts[0]), Bounds(0, 1020));     // l * 4 (+ offset 1024, not in the operand)
  EXPECT_EQ(bounds(facts[1]), Bounds(2016, 2268));  // row + k, k in [-32, -4]
  EXPECT_TRUE(facts[2].range.is_full());            // j counts to a number unknown here
  EXPECT_EQ(bounds(facts[3]), Bounds(0, 0xFFFF'FFFF)) << "the address of the byte is a parameter's";
  EXPECT_EQ(bounds(facts[4]), Bounds(4096, 4096 + 255 * 4));
  EXPECT_EQ(bounds(facts[5]), Bounds(0, 255 * 64 + 63));  // an or of disjoint bits is a sum

  // With no workgroup size assumed, the local index is any number; the
  // loop's range does not depend on it (l & 7).
  auto unassumed = access_facts(wat, {.stack_pointer = std::nullopt,
                                      .stack_pointer_aligned = false,
                                      .number_params = {},
                                      .max_workgroup_invocations = 0,
                                      .ranges = true});
  EXPECT_TRUE(access_facts(wat)[1].range.is_full()) << "ranges are worked out only when asked for";
  EXPECT_TRUE(unassumed[0].range.is_full());
  EXPECT_EQ(bounds(unassumed[1]), Bounds(2016, 2268));
}

// A compiled kernel: the shared accesses the ranges prove take no run-time
// check once the workgroup size is specialised (a spec-constant condition).
TEST(PointerProvenance, ProvenSharedAccessesAreCounted) {
  CompiledKernel kernel = testing::expect_compiles(testing::c_to_wasm(R"(
#include <wasmgpu.h>
WASMGPU_SHARED float tile[256];
WASMGPU_KERNEL(k) void k(int i, float *out) {
  unsigned l = wasmgpu_local_index();
  tile[l] = (float)i;
  wasmgpu_barrier();
  out[i] = tile[255 - (l & 255)] + tile[l * 2];
}
)",
                                                                      "-O2", std::string("-I") + WASMGPU_INCLUDE_DIR),
                                                   "k");
  // tile[l] (workgroups up to 256) and tile[255 - (l & 255)] (any); l * 2
  // reaches past the tile.
  EXPECT_EQ(kernel.info.memory_access_paths.proven_shared, 2u);
  const std::string text = testing::disassembly(kernel);
  EXPECT_NE(text.find("OpSpecConstantOp %bool ULessThanEqual"), std::string::npos) << text;
}

}  // namespace
}  // namespace wasmgpu::frontend
