// Call shaders (compile_calls), call_indirect and
// memory.init/data.drop: every output is validated with spirv-val.
#include <cstring>

#include "abi/launch_abi.h"
#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

Result<CompiledCalls> calls_of(std::string_view wat, std::vector<std::string> exports) {
  std::vector<uint8_t> bytes = wat_to_wasm(wat);
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module module, wasm::decode(bytes));
  return compile_calls(module, exports);
}

CompiledCalls expect_calls(std::string_view wat, std::vector<std::string> exports) {
  Result<CompiledCalls> result = calls_of(wat, std::move(exports));
  if (!result.ok()) {
    ADD_FAILURE() << result.error().to_string();
    return {};
  }
  EXPECT_TRUE(validate(result->words).ok());
  return std::move(result).value();
}

TEST(CallShader, AnySignatureAndSideEffects) {
  CompiledCalls calls = expect_calls(R"((module
    (memory 1)
    (global $g (mut i64) (i64.const 7))
    (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
    (func (export "pair") (param f64) (result f32 i64) (f32.demote_f64 (local.get 0)) (global.get $g))
    (func $store (param i32) (i32.store (local.get 0) (i32.const 1)))
    (func (export "writes") (param i32) (call $store (local.get 0)))
    (func (export "bump") (global.set $g (i64.const 1)))
    (func (export "none")))
  )",
                                     {"add", "pair", "writes", "bump", "none"});
  ASSERT_EQ(calls.calls.size(), 5u);
  EXPECT_FALSE(calls.calls[0].has_side_effects);
  EXPECT_FALSE(calls.calls[1].has_side_effects);
  EXPECT_TRUE(calls.calls[2].has_side_effects);
  EXPECT_TRUE(calls.calls[3].has_side_effects);
  EXPECT_FALSE(calls.calls[4].has_side_effects);
  EXPECT_EQ(calls.calls[1].results.size(), 2u);
  EXPECT_EQ(calls.call_record_size, 8u + 2 * 8);
  EXPECT_EQ(calls.result_record_size, 8u + 2 * 8);
  EXPECT_TRUE(calls.info.uses_instance_state);  // the mutable global
  EXPECT_TRUE(calls.info.uses_float64);
  EXPECT_EQ(calls.info.float64_function, "pair");
}

TEST(CallShader, RefusesReferenceParamsAndUnknownExports) {
  auto refs = calls_of(R"((module (func (export "f") (param externref))))", {"f"});
  ASSERT_FALSE(refs.ok());
  EXPECT_NE(refs.error().message.find("externref"), std::string::npos);
  auto missing = calls_of(R"((module (func (export "f"))))", {"g"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("'g'"), std::string::npos);
}

TEST(CallShader, MemoryGrowSizeInitDrop) {
  CompiledCalls calls = expect_calls(R"((module
    (memory 1 4)
    (data $p "hello")
    (data (i32.const 8) "x")
    (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
    (func (export "size") (result i32) (memory.size))
    (func (export "init") (param i32 i32 i32) (memory.init $p (local.get 0) (local.get 1) (local.get 2)))
    (func (export "drop") (data.drop $p))
    (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0))))
  )",
                                     {"grow", "size", "init", "drop", "load"});
  EXPECT_TRUE(calls.info.uses_instance_state);
  EXPECT_TRUE(calls.calls[0].has_side_effects);
  EXPECT_FALSE(calls.calls[1].has_side_effects);
  EXPECT_FALSE(calls.calls[4].has_side_effects);
}

TEST(CallShader, CallIndirectThroughTheTable) {
  CompiledCalls calls = expect_calls(R"((module
    (type $ii (func (param i32) (result i32)))
    (type $v (func))
    (table 4 funcref)
    (elem (i32.const 0) $inc $dec $nop)
    (func $inc (type $ii) (i32.add (local.get 0) (i32.const 1)))
    (func $dec (type $ii) (i32.sub (local.get 0) (i32.const 1)))
    (func $nop (type $v))
    (func (export "dispatch") (param i32 i32) (result i32)
      (call_indirect (type $ii) (local.get 1) (local.get 0))))
  )",
                                     {"dispatch"});
  EXPECT_EQ(calls.info.compiled_functions, 3u);  // dispatch, inc, dec: $nop has another type
}

TEST(CallShader, ImportedGlobalsAreInstanceState) {
  CompiledCalls calls = expect_calls(R"((module
    (import "spectest" "global_i32" (global $g i32))
    (global $copy i32 (global.get $g))
    (func (export "get") (result i32) (global.get $g))
    (func (export "get-copy") (result i32) (global.get $copy)))
  )",
                                     {"get", "get-copy"});
  EXPECT_TRUE(calls.info.uses_instance_state);
  EXPECT_FALSE(calls.calls[0].has_side_effects);
  EXPECT_FALSE(calls.calls[1].has_side_effects);
}

TEST(CallShader, RecursiveExportsShareOneStateMachine) {
  CompiledCalls calls = expect_calls(R"((module
    (func $even (export "even") (param i64) (result i32)
      (if (result i32) (i64.eqz (local.get 0)) (then (i32.const 1))
        (else (call $odd (i64.sub (local.get 0) (i64.const 1))))))
    (func $odd (export "odd") (param i64) (result i32)
      (if (result i32) (i64.eqz (local.get 0)) (then (i32.const 0))
        (else (call $even (i64.sub (local.get 0) (i64.const 1))))))))",
                                     {"even", "odd"});
  ASSERT_EQ(calls.calls.size(), 2u);
  EXPECT_GT(calls.info.call_stack_bytes, 0u);
  EXPECT_FALSE(calls.calls[0].has_side_effects);
}

}  // namespace
}  // namespace wasmgpu::spirv::testing
