// Tables in the instance state: the layout and initial contents of tables and
// element segments, and shaders using every table instruction (each
// validated with spirv-val). frontend/table_test.cpp: what call_indirect may
// reach.
#include <cstring>

#include "abi/launch_abi.h"
#include "frontend/instance_state.h"
#include "frontend/table.h"
#include "spirv/test_util.h"

namespace wasmgpu::spirv::testing {
namespace {

using frontend::initial_instance_state;
using frontend::instance_layout;
using frontend::InstanceLayout;

wasm::Module decode_wat(std::string_view wat) { return frontend::testing::decode_wat(wat, ""); }

TEST(Table, InstanceStateHoldsTablesAndElementSegments) {
  wasm::Module module = decode_wat(R"((module
    (import "spectest" "global_i32" (global $offset i32))
    (table $t 4 funcref)
    (table $u 2 3 funcref)
    (func $f) (func $g)
    (elem $p funcref (ref.func $g) (ref.null func) (ref.func $f))
    (elem (table $t) (global.get $offset) func $f $g)
    (elem (table $u) (i32.const 1) func $g)
    (elem declare func $f)))");
  InstanceLayout layout = instance_layout(module);
  ASSERT_EQ(layout.table_offsets.size(), 2u);
  ASSERT_EQ(layout.elem_items_offsets.size(), 4u);
  EXPECT_EQ(layout.elem_dropped_offset, layout.data_dropped_offset);  // no data segments
  EXPECT_EQ(layout.elem_items_offsets[0], layout.elem_dropped_offset + 4 * 4);
  EXPECT_EQ(layout.elem_items_offsets[1], layout.elem_items_offsets[0] + 3 * 4);
  EXPECT_EQ(layout.table_offsets[0] % 8, 0u);
  EXPECT_EQ(layout.table_offsets[1] % 8, 0u);
  EXPECT_GE(layout.table_offsets[1],
            layout.table_offsets[0] + abi::kTableSlots + 4 * (4 + frontend::kTableGrowthSlots));
  EXPECT_GE(layout.size, layout.table_offsets[1] + abi::kTableSlots + 4 * 3);

  uint64_t imported[] = {1};
  auto state = initial_instance_state(module, imported, 0);
  ASSERT_TRUE(state.ok()) << state.error().to_string();
  auto u32_at = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, state->data() + at, 4);
    return v;
  };
  const uint32_t t = layout.table_offsets[0], u = layout.table_offsets[1];
  EXPECT_EQ(u32_at(t + abi::kTableSize), 4u);
  EXPECT_EQ(u32_at(t + abi::kTableCapacity), 4u + frontend::kTableGrowthSlots);
  const uint32_t null = abi::kNullRef;
  std::vector<uint32_t> slots;
  for (uint32_t i = 0; i < 4; ++i) slots.push_back(u32_at(t + abi::kTableSlots + 4 * i));
  EXPECT_EQ(slots, (std::vector<uint32_t>{null, 0, 1, null}));  // placed at the imported offset 1
  EXPECT_EQ(u32_at(u + abi::kTableSize), 2u);
  EXPECT_EQ(u32_at(u + abi::kTableCapacity), 3u);
  EXPECT_EQ(u32_at(u + abi::kTableSlots), null);
  EXPECT_EQ(u32_at(u + abi::kTableSlots + 4), 1u);
  EXPECT_EQ(u32_at(layout.elem_items_offsets[0] + 4), null);
  EXPECT_EQ(u32_at(layout.elem_items_offsets[0] + 8), 0u);
  std::vector<uint32_t> dropped;
  for (uint32_t i = 0; i < 4; ++i) dropped.push_back(u32_at(layout.elem_dropped_offset + 4 * i));
  EXPECT_EQ(dropped, (std::vector<uint32_t>{0, 1, 1, 1}));  // only the passive segment is left

  uint64_t too_far[] = {3};
  auto overflow = initial_instance_state(module, too_far, 0);
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.error().message.find("does not fit"), std::string::npos) << overflow.error().message;
}

TEST(Table, EveryTableInstructionCompilesAndCountsAsASideEffect) {
  std::vector<uint8_t> bytes = wat_to_wasm(R"((module
    (type $ii (func (param i32) (result i32)))
    (table $t 2 funcref)
    (table $u 2 funcref)
    (elem $p funcref (ref.func $inc))
    (func $inc (type $ii) (i32.add (local.get 0) (i32.const 1)))
    (func (export "call") (param i32 i32) (result i32) (call_indirect $u (type $ii) (local.get 1) (local.get 0)))
    (func (export "get") (param i32) (result i32) (ref.is_null (table.get $t (local.get 0))))
    (func (export "size") (result i32) (table.size $u))
    (func (export "set") (param i32) (local $r funcref) (local.set $r (ref.func $inc))
      (table.set $t (local.get 0) (local.get $r)))
    (func (export "init") (param i32 i32 i32) (table.init $t $p (local.get 0) (local.get 1) (local.get 2)))
    (func (export "drop") (elem.drop $p))
    (func (export "copy") (param i32 i32 i32) (table.copy $u $t (local.get 0) (local.get 1) (local.get 2)))
    (func (export "grow") (param i32) (result i32) (table.grow $t (ref.null func) (local.get 0)))
    (func (export "fill") (param i32 i32) (table.fill $u (local.get 0) (ref.func $inc) (local.get 1)))))",
                                           "");
  Result<wasm::Module> module = wasm::decode(bytes);
  ASSERT_TRUE(module.ok());
  std::vector<std::string> exports = {"call", "get", "size", "set", "init", "drop", "copy", "grow", "fill"};
  Result<CompiledCalls> calls = compile_calls(*module, exports);
  ASSERT_TRUE(calls.ok()) << calls.error().to_string();
  EXPECT_TRUE(validate(calls->words).ok());
  EXPECT_TRUE(calls->info.uses_instance_state);
  for (size_t i = 0; i < exports.size(); ++i) EXPECT_EQ(calls->calls[i].has_side_effects, i >= 3) << exports[i];
}

}  // namespace
}  // namespace wasmgpu::spirv::testing
