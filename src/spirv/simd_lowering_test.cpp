// SIMD lowering (simd_lowering.cpp): v128 values, lanes and their accesses
// compile to valid SPIR-V of the documented shape. What each instruction
// computes is checked on the device by the spec scripts (spectest.simd).
#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SimdLowering, V128InLocalsParamsResultsGlobalsBlocksAndSelect) {
  CompiledKernel k = compile_wat(R"((module
    (memory 1)
    (global $g (mut v128) (v128.const i32x4 1 2 3 4))
    (global $c v128 (v128.const i64x2 5 6))
    (func $twice (param v128) (result v128 v128) (local.get 0) (local.get 0))
    (func (export "k") (param $i i32) (local $v v128)
      (local.set $v (i32x4.splat (local.get $i)))
      (block (result v128)
        (call $twice (i32x4.add (local.get $v) (global.get $c)))
        (drop))
      (global.get $g)
      (local.get $i)
      (select)
      (global.set $g)
      (v128.store (i32.const 0) (global.get $g)))))");
  std::string text = disassembly(k);
  EXPECT_NE(text.find("%v4uint = OpTypeVector %uint 4"), std::string::npos) << text;
  EXPECT_NE(text.find("OpConstantComposite %v4uint"), std::string::npos) << text;
  EXPECT_NE(text.find("OpSelect %v4uint"), std::string::npos) << text;
  EXPECT_NE(text.find("OpIAdd %v4uint"), std::string::npos) << text;
}

TEST(SimdLowering, NarrowIntegerLanesAreVectorsOfParts) {
  CompiledKernel k = compile_wat(R"((module
    (memory 1)
    (func (export "k") (param $i i32)
      (v128.store (local.get $i)
        (i8x16.add_sat_s (v128.load (local.get $i)) (v128.load offset=16 (local.get $i)))))))");
  std::string text = disassembly(k);
  // i8 lanes: four parts of sign-extended lanes per operand, one add per part.
  EXPECT_EQ(count_of(text, "OpBitFieldSExtract %v4uint"), 8u) << text;
  EXPECT_EQ(count_of(text, "OpIAdd %v4uint"), 4u) << text;
  EXPECT_EQ(count_of(text, "OpBitFieldInsert %v4uint"), 3u) << text;
}

// Relaxed SIMD's trunc may give the saturated result for NaN and
// out-of-range lanes; it is lowered as the saturating trunc, word for word.
TEST(SimdLowering, RelaxedTruncIsTheSaturatingTrunc) {
  auto module_with = [](const std::string& op) {
    return R"((module
    (memory 1)
    (func (export "k") (param $i i32)
      (v128.store (local.get $i) ()" +
           op + R"( (v128.load (local.get $i)))))))";
  };
  CompiledKernel relaxed = compile_wat(module_with("i32x4.relaxed_trunc_f32x4_s"));
  CompiledKernel saturating = compile_wat(module_with("i32x4.trunc_sat_f32x4_s"));
  EXPECT_FALSE(relaxed.words.empty());
  EXPECT_EQ(relaxed.words, saturating.words);
}

// A kernel applying `op` to `arity` v128 operands loaded from memory (each a
// v128.load, so that every form loads its operands in the same order).
std::string relaxed_module(const std::string& op, int arity) {
  std::string operands;
  for (int i = 0; i < arity; ++i) operands += " (v128.load offset=" + std::to_string(16 * i) + " (local.get $i))";
  return "(module (memory 1) (func (export \"k\") (param $i i32) (v128.store (local.get $i) (" + op + operands + "))))";
}

CompiledKernel compile_in(const std::string& wat, FloatMode mode) {
  Result<wasm::Module> module = wasm::decode(wat_to_wasm(wat));
  EXPECT_TRUE(module.ok());
  if (!module.ok()) return {};
  CompileOptions options;
  options.float_mode = mode;
  Result<CompiledKernel> k = compile_kernel(*module, "k", options);
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().to_string());
  if (!k.ok()) return {};
  EXPECT_TRUE(validate(k->words).ok());
  return std::move(k).value();
}

// WebAssembly 3.0's deterministic profile gives each relaxed instruction its
// first alternative, which for these is an existing instruction: the relaxed
// one lowers to it word for word, in both float modes.
TEST(SimdLowering, RelaxedInstructionsAreTheirDeterministicCounterparts) {
  struct Pair {
    const char* relaxed;
    const char* counterpart;
    int arity;
  };
  const Pair pairs[] = {
      {"i8x16.relaxed_swizzle", "i8x16.swizzle", 2},
      {"i32x4.relaxed_trunc_f32x4_u", "i32x4.trunc_sat_f32x4_u", 1},
      {"i32x4.relaxed_trunc_f64x2_s_zero", "i32x4.trunc_sat_f64x2_s_zero", 1},
      {"i32x4.relaxed_trunc_f64x2_u_zero", "i32x4.trunc_sat_f64x2_u_zero", 1},
      {"i8x16.relaxed_laneselect", "v128.bitselect", 3},
      {"i16x8.relaxed_laneselect", "v128.bitselect", 3},
      {"i32x4.relaxed_laneselect", "v128.bitselect", 3},
      {"i64x2.relaxed_laneselect", "v128.bitselect", 3},
      {"f32x4.relaxed_min", "f32x4.min", 2},
      {"f32x4.relaxed_max", "f32x4.max", 2},
      {"f64x2.relaxed_min", "f64x2.min", 2},
      {"f64x2.relaxed_max", "f64x2.max", 2},
      {"i16x8.relaxed_q15mulr_s", "i16x8.q15mulr_sat_s", 2},
  };
  for (FloatMode mode : {FloatMode::Exact, FloatMode::Fast})
    for (const Pair& p : pairs) {
      CompiledKernel relaxed = compile_in(relaxed_module(p.relaxed, p.arity), mode);
      CompiledKernel counterpart = compile_in(relaxed_module(p.counterpart, p.arity), mode);
      EXPECT_FALSE(relaxed.words.empty()) << p.relaxed;
      EXPECT_EQ(relaxed.words, counterpart.words) << p.relaxed << " in " << float_mode_name(mode) << " mode";
    }
}

// relaxed_madd/nmadd are a mul and an add, no Fma: in fast mode one native mul
// and one native add per lane, in exact mode the exact helpers (NoContraction).
TEST(SimdLowering, RelaxedMaddIsMulThenAdd) {
  for (const char* op : {"f32x4.relaxed_madd", "f32x4.relaxed_nmadd", "f64x2.relaxed_madd", "f64x2.relaxed_nmadd"}) {
    const size_t lanes = op[1] == '3' ? 4 : 2;
    std::string fast = disassembly(compile_in(relaxed_module(op, 3), FloatMode::Fast));
    std::string exact = disassembly(compile_in(relaxed_module(op, 3), FloatMode::Exact));
    EXPECT_EQ(count_of(fast, "Fma"), 0u) << op << fast;
    EXPECT_EQ(count_of(exact, "Fma"), 0u) << op << exact;
    EXPECT_EQ(count_of(fast, "OpFMul"), lanes) << op << fast;
    EXPECT_EQ(count_of(fast, "OpFAdd"), lanes) << op << fast;
  }
  // Exact f32 mul and add go through the helpers (docs/float-modes.md).
  std::string exact = disassembly(compile_in(relaxed_module("f32x4.relaxed_madd", 3), FloatMode::Exact));
  EXPECT_NE(exact.find("wasmgpu_f32_mul"), std::string::npos);
  EXPECT_NE(exact.find("wasmgpu_f32_add"), std::string::npos);
}

// The dot products (wabt 1.0.32 spells them without `relaxed_`): 16 products
// of sign-extended bytes and one clamp per i16 sum, beyond what a kernel of
// as many operands with a plain bitwise instruction has (its address arithmetic).
TEST(SimdLowering, RelaxedDotProductsCompile) {
  auto text = [](const std::string& op, int arity) {
    return disassembly(compile_in(relaxed_module(op, arity), FloatMode::Exact));
  };
  auto added = [](const std::string& text, const std::string& base, const std::string& what) {
    return count_of(text, what) - count_of(base, what);
  };
  const std::string dot = text("i16x8.dot_i8x16_i7x16_s", 2), base2 = text("v128.and", 2);
  EXPECT_EQ(added(dot, base2, "OpIMul %uint"), 16u) << dot;
  EXPECT_EQ(added(dot, base2, "OpBitFieldSExtract %uint"), 32u) << dot;
  EXPECT_EQ(added(dot, base2, "OpSGreaterThan %bool"), 8u) << dot;
  const std::string dot_add = text("i32x4.dot_i8x16_i7x16_add_s", 3), base3 = text("v128.bitselect", 3);
  EXPECT_EQ(added(dot_add, base3, "OpIMul %uint"), 16u) << dot_add;
  EXPECT_EQ(added(dot_add, base3, "OpSGreaterThan %bool"), 8u) << dot_add;
}

TEST(SimdLowering, FloatLanesTakeTheScalarLowering) {
  const char* wat = R"((module
    (memory 1)
    (func (export "k") (param $i i32)
      (v128.store (local.get $i) (f32x4.min (v128.load (local.get $i)) (v128.load offset=16 (local.get $i)))))))";
  std::string text = disassembly(compile_wat(wat));
  // f32.min's NaN test on the bits, once per operand of each of the 4 lanes.
  EXPECT_EQ(count_of(text, "OpUGreaterThan %bool"), 8u) << text;
}

TEST(SimdLowering, CallsPassV128AsTwoI64Slots) {
  std::vector<uint8_t> bytes = wat_to_wasm(R"((module
    (func (export "swap") (param v128 i32) (result i32 v128)
      (local.get 1) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get 0) (local.get 0)))))");
  Result<wasm::Module> module = wasm::decode(bytes);
  ASSERT_TRUE(module.ok());
  const std::string exports[] = {"swap"};
  Result<CompiledCalls> calls = compile_calls(*module, exports);
  ASSERT_TRUE(calls.ok()) << calls.error().to_string();
  EXPECT_TRUE(validate(calls->words).ok());
  using wasm::ValType;
  EXPECT_EQ(calls->calls[0].params, (std::vector<ValType>{ValType::I64, ValType::I64, ValType::I32}));
  EXPECT_EQ(calls->calls[0].results, (std::vector<ValType>{ValType::I32, ValType::I64, ValType::I64}));
  EXPECT_EQ(calls->call_record_size, abi::kCallRecordParams + 3 * abi::kArgSlotSize);
}

TEST(SimdLowering, AlignedParameterAccessesAreOne16ByteAccess) {
  CompiledKernel k = compile_wat(R"((module
    (memory 1)
    (func (export "k") (param $i i32) (param $p i32) (param $q i32)
      (local $at i32)
      (local.set $at (i32.shl (local.get $i) (i32.const 4)))
      (v128.store (i32.add (local.get $q) (local.get $at))
        (v128.load (i32.add (local.get $p) (local.get $at))))
      ;; 8-byte aligned only: two 8-byte accesses
      (v128.store offset=8 (local.get $q) (v128.load offset=8 (local.get $p))))))");
  std::string text = disassembly(k);
  EXPECT_EQ(count_of(text, "OpConvertUToPtr %_ptr_PhysicalStorageBuffer_v4uint"), 2u) << text;
  EXPECT_EQ(count_of(text, "Aligned 16"), 2u) << text;
  // One each for the 16-byte load and store, two each for the others.
  EXPECT_EQ(k.info.memory_access_paths.parameter, 6u);
}

TEST(SimdLowering, LaneLoadsAndStoresCompile) {
  compile_wat(R"((module
    (memory 1)
    (func (export "k") (param $i i32) (local $v v128)
      (local.set $v (v128.load8x8_s (local.get $i)))
      (local.set $v (v128.load32_zero offset=4 (local.get $i)))
      (local.set $v (v128.load16_splat (local.get $i)))
      (local.set $v (v128.load64_lane 1 (local.get $i) (local.get $v)))
      (v128.store8_lane 15 (local.get $i) (local.get $v))
      (v128.store64_lane 0 (local.get $i) (local.get $v)))))");
}

}  // namespace
}  // namespace wasmgpu::spirv::testing
