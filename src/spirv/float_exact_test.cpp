// Float modes in the compiler: both modes give valid SPIR-V; exact mode
// routes the ops a device may get wrong through the exact helpers.
#include "spirv/float_exact.h"

#include <gtest/gtest.h>

#include "spirv/test_util.h"

namespace wasmgpu::spirv {
namespace {

using testing::wat_to_wasm;

const char* kFloatOps = R"((module
  (memory 1)
  (func (export "k") (param i32 f32 f64)
    (local f32 f64)
    (local.set 3 (f32.div (f32.add (local.get 1) (f32.mul (local.get 1) (local.get 1)))
                          (f32.sqrt (f32.sub (local.get 1) (f32.const 1)))))
    (local.set 4 (f64.div (f64.add (local.get 2) (f64.mul (local.get 2) (local.get 2)))
                          (f64.sqrt (f64.sub (local.get 2) (f64.const 1)))))
    (local.set 3 (f32.min (local.get 3) (f32.max (local.get 1) (f32.ceil (local.get 3)))))
    (local.set 4 (f64.min (local.get 4) (f64.max (local.get 2) (f64.nearest (local.get 4)))))
    (if (f32.lt (local.get 3) (f32.demote_f64 (local.get 4)))
      (then (local.set 4 (f64.promote_f32 (local.get 3)))))
    (f32.store (i32.const 0) (local.get 3))
    (f64.store (i32.const 8) (local.get 4))))
)";

CompiledKernel compile_in(FloatMode mode, const std::vector<uint8_t>& bytes) {
  auto module = wasm::decode(bytes);
  EXPECT_TRUE(module.ok());
  CompileOptions options;
  options.float_mode = mode;
  auto compiled = compile_kernel(*module, "k", options);
  EXPECT_TRUE(compiled.ok()) << (compiled.ok() ? "" : compiled.error().to_string());
  if (!compiled.ok()) return {};
  EXPECT_TRUE(validate(compiled->words).ok());
  return std::move(compiled).value();
}

size_t instruction_count(const std::vector<uint32_t>& words) {
  size_t count = 0;
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) ++count;
  return count;
}

TEST(FloatExact, ExactIsTheDefault) {
  EXPECT_EQ(CompileOptions{}.float_mode, FloatMode::Exact);
  EXPECT_EQ(parse_float_mode("fast"), FloatMode::Fast);
  EXPECT_EQ(parse_float_mode("exact"), FloatMode::Exact);
  EXPECT_FALSE(parse_float_mode("approximate"));
  EXPECT_EQ(float_mode_name(FloatMode::Fast), "fast");
}

TEST(FloatExact, BothModesValidate) {
  auto bytes = wat_to_wasm(kFloatOps);
  CompiledKernel exact = compile_in(FloatMode::Exact, bytes);
  CompiledKernel fast = compile_in(FloatMode::Fast, bytes);
  EXPECT_EQ(exact.info.float_mode, FloatMode::Exact);
  EXPECT_EQ(fast.info.float_mode, FloatMode::Fast);
  std::string exact_text = testing::disassembly(exact), fast_text = testing::disassembly(fast);
  for (const char* helper : {"wasmgpu_f32_add", "wasmgpu_f32_sub", "wasmgpu_f32_mul", "wasmgpu_f32_div",
                             "wasmgpu_f64_div", "wasmgpu_f32_sqrt", "wasmgpu_f64_sqrt", "wasmgpu_f32_demote"}) {
    EXPECT_NE(exact_text.find(helper), std::string::npos) << helper;
    EXPECT_EQ(fast_text.find(helper), std::string::npos) << helper;
  }
  // Fast mode keeps the native instructions; exact mode no native division or sqrt.
  EXPECT_NE(fast_text.find("OpFDiv"), std::string::npos);
  EXPECT_NE(fast_text.find("Sqrt"), std::string::npos);
  EXPECT_EQ(exact_text.find("OpFDiv"), std::string::npos);
  EXPECT_EQ(exact_text.find("Sqrt"), std::string::npos);
  EXPECT_GT(instruction_count(exact.words), instruction_count(fast.words));
  std::cout << "float-op kernel: " << instruction_count(fast.words) << " instructions fast, "
            << instruction_count(exact.words) << " exact\n";
}

// Both modes round to nearest even; only exact mode asks the driver to keep
// NaNs, infinities and signed zeros (with it, NVIDIA's compiler stopped
// fusing multiply-adds in fast mode). The NaN tests that decide wasm's
// results (min, max, trapping and saturating conversions) read the bits in
// both modes, so that they hold whatever the driver assumes about NaNs.
TEST(FloatExact, FastModeLeavesSpecialValuesToTheDevice) {
  auto bytes = wat_to_wasm(R"((module (memory 1)
    (func (export "k") (param i32 f32 f64)
      (f32.store (i32.const 0) (f32.min (local.get 1) (f32.const 2)))
      (f64.store (i32.const 8) (f64.max (local.get 2) (f64.const 2)))
      (i32.store (i32.const 16) (i32.trunc_f32_s (local.get 1)))
      (i64.store (i32.const 24) (i64.trunc_sat_f64_u (local.get 2))))))");
  const std::string exact = testing::disassembly(compile_in(FloatMode::Exact, bytes));
  const std::string fast = testing::disassembly(compile_in(FloatMode::Fast, bytes));
  EXPECT_NE(exact.find("OpExecutionMode %main SignedZeroInfNanPreserve 32"), std::string::npos);
  EXPECT_NE(exact.find("OpExecutionMode %main RoundingModeRTE 32"), std::string::npos);
  EXPECT_EQ(fast.find("SignedZeroInfNanPreserve"), std::string::npos);
  EXPECT_NE(fast.find("OpExecutionMode %main RoundingModeRTE 32"), std::string::npos);
  EXPECT_NE(fast.find("OpExecutionMode %main RoundingModeRTE 64"), std::string::npos);
  EXPECT_EQ(fast.find("OpIsNan"), std::string::npos);
}

TEST(FloatExact, F32OnlyKernelNeedsFloat64InExactMode) {
  auto bytes = wat_to_wasm(R"((module (memory 1)
    (func (export "k") (param i32 f32) (f32.store (i32.const 0) (f32.add (local.get 1) (local.get 1))))))");
  EXPECT_TRUE(compile_in(FloatMode::Exact, bytes).info.uses_float64);
  EXPECT_FALSE(compile_in(FloatMode::Fast, bytes).info.uses_float64);
  // Comparisons and min/max are integer-only: no f64 needed.
  auto compare = wat_to_wasm(R"((module (memory 1)
    (func (export "k") (param i32 f32) (i32.store (i32.const 0) (f32.lt (local.get 1) (f32.min (local.get 1) (f32.const 2)))))))");
  EXPECT_FALSE(compile_in(FloatMode::Exact, compare).info.uses_float64);
}

// Exact f32 + - * run the device's f32 instruction, rounded alone
// (NoContraction), and reach the f64 helper only through a branch: the
// helper call sits in a block of its own, after the native result's test.
TEST(FloatExact, F32ArithmeticIsNativeWithTheHelperAsSlowPath) {
  auto bytes = wat_to_wasm(R"((module (memory 1)
    (func (export "k") (param i32 f32 f32)
      (f32.store (i32.const 0) (f32.add (f32.mul (local.get 1) (local.get 2)) (local.get 2))))))");
  std::string text = testing::disassembly(compile_in(FloatMode::Exact, bytes));
  for (const char* native : {"OpFMul %float", "OpFAdd %float"}) {
    size_t at = text.find(native);
    ASSERT_NE(at, std::string::npos) << native;
    size_t equals = text.rfind(" = ", at), name = text.rfind('%', equals);
    std::string id = text.substr(name, equals - name);  // the result id of the instruction
    EXPECT_NE(text.find("OpDecorate " + id + " NoContraction"), std::string::npos) << native;
    // The native result is tested before the helper runs.
    size_t call = text.find("OpFunctionCall", at);
    ASSERT_NE(call, std::string::npos);
    EXPECT_NE(text.substr(at, call - at).find("OpBranchConditional"), std::string::npos) << native;
  }
  EXPECT_NE(text.find("wasmgpu_f32_add"), std::string::npos);
  EXPECT_NE(text.find("wasmgpu_f32_mul"), std::string::npos);
}

}  // namespace
}  // namespace wasmgpu::spirv
