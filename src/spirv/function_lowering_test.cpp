#include <map>

#include "frontend/kernel_signature.h"
#include "spirv/test_util.h"
#include "wasm/opcode.h"

namespace wasmgpu::spirv::testing {
namespace {

// One kernel applying every numeric opcode of the table (typed by the table,
// not SIMD, no immediate) to locals of the right types.
std::string every_numeric_opcode_wat() {
  std::map<wasm::ValType, std::string> local = {
      {wasm::ValType::I32, "$i"}, {wasm::ValType::I64, "$l"}, {wasm::ValType::F32, "$f"}, {wasm::ValType::F64, "$d"}};
  std::string body;
  for (uint32_t i = 0; i < wasm::kOpcodeCount; ++i) {
    const wasm::OpcodeInfo& op = wasm::info(wasm::Opcode(i));
    if (op.cls == wasm::OpcodeClass::Vector || op.typed_by_hand) continue;
    if (op.immediate != wasm::ImmediateKind::None) continue;  // consts, memory: elsewhere
    std::string expr = "(" + std::string(op.text);
    for (wasm::ValType param : op.params) expr += " (local.get " + local.at(param) + ")";
    expr += ")";
    body += !op.results.empty() ? "(drop " + expr + ")\n" : expr + "\n";
  }
  return "(module (func (export \"k\") (param $i i32) (param $l i64) (param $f f32) (param $d f64)\n" + body + "))";
}

TEST(FunctionLowering, EveryNumericOpcodeValidates) {
  CompiledKernel k = compile_wat(every_numeric_opcode_wat());
  EXPECT_TRUE(k.info.uses_float64);
  EXPECT_EQ(k.info.params.size(), 3u);
  std::string text = disassembly(k);
  EXPECT_NE(text.find("NoContraction"), std::string::npos);
  EXPECT_NE(text.find("SignedZeroInfNanPreserve"), std::string::npos);
  // Float min/max are built from compares, never the GLSL instructions.
  EXPECT_EQ(text.find("FMin"), std::string::npos);
  EXPECT_EQ(text.find("NMin"), std::string::npos);
}

TEST(FunctionLowering, ConstantsAndSelect) {
  CompiledKernel k = compile_wat(R"((module (func (export "k") (param $x i32)
    (drop (select (i32.const -1) (i32.const 7) (local.get $x)))
    (drop (select (i64.const 0x8000000000000000) (i64.const 7) (local.get $x)))
    (drop (select (result f32) (f32.const nan:0x200000) (f32.const -0.0) (local.get $x)))
    (drop (select (f64.const inf) (f64.const -0x1p-1074) (local.get $x))))))");
  EXPECT_TRUE(k.info.uses_float64);
}

// NVIDIA's driver quiets a signalling NaN given as a float OpConstant, so those
// constants are integer constants bitcast in the function; other float
// constants stay OpConstants.
TEST(FunctionLowering, SignallingNanConstantsAreBitcastIntegers) {
  CompiledKernel k = compile_wat(R"((module (memory 1) (func (export "k") (param i32)
    (f32.store (i32.const 0) (f32.const nan:0x200000))
    (f64.store (i32.const 8) (f64.const -nan:0x4000000000000))
    (f32.store (i32.const 16) (f32.const nan:0x400001))
    (f32.store (i32.const 20) (f32.const 1.5)))))");
  std::string text = disassembly(k);
  EXPECT_NE(text.find("%uint 2141192192"), std::string::npos) << text;             // 0x7fa00000
  EXPECT_NE(text.find("%ulong 18443366373989023744"), std::string::npos) << text;  // 0xfff4000000000000
  EXPECT_EQ(text.find("%float 0x1.4p+128"), std::string::npos) << text;
  EXPECT_NE(text.find("%float 1.5"), std::string::npos) << text;
  EXPECT_NE(text.find("%float 0x1.800002p+128"), std::string::npos) << text;  // quiet NaN stays a float
}

// In fast float mode; exact f32 arithmetic goes through f64 (float_exact_test.cpp).
TEST(FunctionLowering, NoFloat64WithoutF64) {
  auto module = wasm::decode(wat_to_wasm(R"((module (func (export "k") (param $x i32) (param $y f32)
    (drop (f32.add (local.get $y) (f32.convert_i32_s (local.get $x)))))))"));
  ASSERT_TRUE(module.ok());
  CompileOptions options;
  options.float_mode = FloatMode::Fast;
  auto compiled = compile_kernel(*module, "k", options);
  ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
  CompiledKernel k = std::move(compiled).value();
  EXPECT_FALSE(k.info.uses_float64);
  EXPECT_EQ(disassembly(k).find("Float64"), std::string::npos);
}

// Fast mode lets the device contract a*b + c; exact mode never does.
TEST(FunctionLowering, OnlyFastModeAllowsContraction) {
  auto module = wasm::decode(wat_to_wasm(R"((module (func (export "k") (param $i i32) (param $a f64) (param $b f64)
    (drop (f64.add (f64.mul (local.get $a) (local.get $b)) (local.get $a))))))"));
  ASSERT_TRUE(module.ok());
  for (FloatMode mode : {FloatMode::Fast, FloatMode::Exact}) {
    CompileOptions options;
    options.float_mode = mode;
    auto compiled = compile_kernel(*module, "k", options);
    ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
    const bool contraction_forbidden = disassembly(*compiled).find("NoContraction") != std::string::npos;
    EXPECT_EQ(contraction_forbidden, mode == FloatMode::Exact) << float_mode_name(mode);
  }
}

TEST(FunctionLowering, GlobalsAreInvocationPrivate) {
  compile_wat(R"((module
    (global $a (mut i64) (i64.const 5))
    (global $b f64 (f64.const 1.5))
    (func (export "k") (param i32)
      (global.set $a (i64.add (global.get $a) (i64.trunc_f64_s (global.get $b)))))))");
}

TEST(FunctionLowering, CallsWithManyParamsAndResults) {
  compile_wat(R"((module
    (func $f (param i32 i64 f32 f64) (result f64 i32)
      (f64.add (local.get 3) (f64.promote_f32 (local.get 2)))
      (i32.wrap_i64 (local.get 1)))
    (func $g (param i32) (result i32) (call $h (local.get 0)))
    (func $h (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
    (func (export "k") (param $x i32) (param $y i64) (param $z f32) (param $w f64)
      (call $f (call $g (local.get $x)) (local.get $y) (local.get $z) (local.get $w))
      (drop) (drop))))");
}

TEST(Kernel, SignatureProblems) {
  auto bytes = wat_to_wasm(R"((module
    (memory (export "mem") 1)
    (func (export "noparams"))
    (func (export "firsti64") (param i64))
    (func (export "returns") (param i32) (result i32) (local.get 0))
    (func (export "v128") (param i32 v128))
    (func (export "ok") (param i32 i64 f32 f64))))");
  auto module = wasm::decode(bytes);
  ASSERT_TRUE(module.ok());
  // The message of the refusal, "" when the export is a kernel.
  auto problem = [&](std::string_view name) {
    Status signature = frontend::check_kernel_signature(*module, name);
    return signature.ok() ? std::string() : signature.error().message;
  };
  EXPECT_EQ(problem("ok"), "");
  EXPECT_NE(problem("missing").find("no export"), std::string::npos);
  EXPECT_NE(problem("mem").find("memory"), std::string::npos);
  EXPECT_NE(problem("noparams").find("no parameters"), std::string::npos);
  EXPECT_NE(problem("firsti64").find("i64"), std::string::npos);
  EXPECT_NE(problem("returns").find("returns"), std::string::npos);
  EXPECT_NE(problem("v128").find("v128"), std::string::npos);
  EXPECT_EQ(frontend::check_kernel_signature(*module, "missing").error().code, ErrorCode::NotFound);
  EXPECT_EQ(frontend::check_kernel_signature(*module, "returns").error().code, ErrorCode::InvalidArgument);
  EXPECT_FALSE(compile_kernel(*module, "returns").ok());
  EXPECT_TRUE(compile_kernel(*module, "ok").ok());
}

TEST(Kernel, RefusesWithTheFunctionsName) {
  auto wait = wat_to_wasm(R"((module (memory 1 1 shared)
    (func $waiter (param i32)
      (drop (memory.atomic.wait32 (local.get 0) (i32.const 0) (i64.const -1))))
    (func (export "k") (param i32) (call $waiter (local.get 0)))))");
  std::string error = compile_error(wait, "k");
  EXPECT_NE(error.find("memory.atomic.wait32"), std::string::npos) << error;
  EXPECT_NE(error.find("waiter"), std::string::npos) << error;

  auto import = wat_to_wasm(R"((module
    (import "env" "expf" (func $expf (param f32) (result f32)))
    (func $user (param f32) (result f32) (call $expf (local.get 0)))
    (func (export "k") (param i32) (drop (call $user (f32.const 1))))))");
  error = compile_error(import, "k");
  EXPECT_NE(error.find("env.expf"), std::string::npos) << error;
  EXPECT_NE(error.find("user"), std::string::npos) << error;

  auto indirect = wat_to_wasm(R"((module
    (table 1 funcref) (type $t (func))
    (func $caller (call_indirect (type $t) (i32.const 0)))
    (func (export "k") (param i32) (call $caller))))");
  // call_indirect compiles (table_test.cpp), but not through an imported table.
  expect_compiles(indirect, "k");
  auto imported_table = wat_to_wasm(R"((module
    (import "env" "t" (table 1 funcref)) (type $t (func))
    (func $caller (call_indirect (type $t) (i32.const 0)))
    (func (export "k") (param i32) (call $caller))))");
  error = compile_error(imported_table, "k");
  EXPECT_NE(error.find("imported table"), std::string::npos) << error;
  EXPECT_NE(error.find("caller"), std::string::npos) << error;

  auto global_import = wat_to_wasm(R"((module
    (import "env" "g" (global $g i32))
    (func (export "k") (param i32) (drop (global.get $g)))))");
  // Imported globals are supplied by the runtime in the instance state.
  EXPECT_TRUE(expect_compiles(global_import, "k").info.uses_instance_state);

  // Unreachable functions may use anything.
  auto unused = wat_to_wasm(R"((module
    (import "env" "expf" (func $expf (param f32) (result f32)))
    (func $unused (drop (i32x4.splat (i32.const 0))))
    (func (export "k") (param i32))))");
  expect_compiles(unused, "k");
}

}  // namespace
}  // namespace wasmgpu::spirv::testing
