// What the compiler knows of tables before run time: which functions
// call_indirect may reach, element segments' items, the slots a table reserves.
#include "frontend/table.h"

#include <gtest/gtest.h>

#include "abi/launch_abi.h"
#include "frontend/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::frontend::testing {
namespace {

wasm::Module decode_wat(std::string_view wat) { return frontend::testing::decode_wat(wat, ""); }

TEST(Table, IndirectCallTargetsAreEveryFunctionATableMayHold) {
  wasm::Module module = decode_wat(R"((module
    (type $v (func))
    (table 2 funcref)
    (func $a) (func $b) (func $c) (func $d (param i32)) (func $e) (func $unused)
    (elem (i32.const 0) $b)
    (elem $p funcref (ref.func $a) (ref.null func))
    (elem declare func $c $e)
    (global funcref (ref.func $d))
    (func (export "k") (param i32) (table.set 0 (i32.const 1) (ref.func $c)) (drop (ref.func $e)))))");
  Result<IndirectCallTargets> targets = indirect_call_targets(module);
  ASSERT_TRUE(targets.ok()) << targets.error().to_string();
  EXPECT_EQ(targets->functions, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(indirect_callees(module, *targets, 0), (std::vector<uint32_t>{0, 1, 2, 4}));
  EXPECT_EQ(element_items(module.elements[1]).value(), (std::vector<uint32_t>{0, abi::kNullRef}));

  wasm::Module imported = decode_wat(R"((module (import "env" "t" (table 1 funcref))))");
  EXPECT_FALSE(indirect_call_targets(imported).ok());
}

TEST(Table, CapacityReservesGrowthUpToTheMaximum) {
  EXPECT_EQ(table_capacity({wasm::ValType::FuncRef, {3, 5}}), 5u);
  EXPECT_EQ(table_capacity({wasm::ValType::FuncRef, {3, std::nullopt}}), 3u + kTableGrowthSlots);
  EXPECT_EQ(table_capacity({wasm::ValType::FuncRef, {3, 3}}), 3u);
  EXPECT_EQ(table_capacity({wasm::ValType::FuncRef, {uint64_t(kMaxTableSlots) + 1, std::nullopt}}), kMaxTableSlots);
}

}  // namespace
}  // namespace wasmgpu::frontend::testing
