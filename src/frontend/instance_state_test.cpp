// Where a module instance's state lives in the instance buffer, and its
// initial bytes: globals (imported ones given by the host), dropped-segment
// flags, the memory's page counts.
#include "frontend/instance_state.h"

#include <gtest/gtest.h>

#include <cstring>

#include "abi/launch_abi.h"
#include "frontend/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::frontend::testing {
namespace {

TEST(InstanceState, LayoutAndInitialValues) {
  std::vector<uint8_t> bytes = wat_to_wasm(R"((module
    (import "spectest" "global_i64" (global i64))
    (memory 2 5)
    (global (mut i32) (i32.const -3))
    (global (mut i64) (global.get 0))
    (data "ab") (data (i32.const 0) "c") (data "def")))");
  Result<wasm::Module> module = wasm::decode(bytes);
  ASSERT_TRUE(module.ok());
  InstanceLayout layout = instance_layout(*module);
  EXPECT_EQ(layout.globals_offset, abi::kInstanceGlobals);
  EXPECT_EQ(layout.data_dropped_offset, abi::kInstanceGlobals + 3 * 8);
  EXPECT_EQ(layout.data_offsets, (std::vector<uint64_t>{0, 2, 3}));
  EXPECT_EQ(data_segment_bytes(*module), (std::vector<uint8_t>{'a', 'b', 'c', 'd', 'e', 'f'}));
  EXPECT_EQ(memory_reserve_bytes(*module), 5 * abi::kPageSize);
  uint64_t imported[] = {0x1122334455667788ull};
  auto state = initial_instance_state(*module, imported, 4 * abi::kPageSize);
  ASSERT_TRUE(state.ok()) << state.error().to_string();
  auto u32_at = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, state->data() + at, 4);
    return v;
  };
  auto u64_at = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, state->data() + at, 8);
    return v;
  };
  EXPECT_EQ(u32_at(abi::kInstanceMemoryPages), 2u);
  EXPECT_EQ(u32_at(abi::kInstanceMemoryLimitPages), 4u);  // the reserve is below the max
  EXPECT_EQ(u64_at(layout.globals_offset), 0x1122334455667788ull);
  EXPECT_EQ(u64_at(layout.globals_offset + 8), 0xFFFF'FFFDull);
  EXPECT_EQ(u64_at(layout.globals_offset + 16), 0x1122334455667788ull);
  EXPECT_EQ(u32_at(layout.data_dropped_offset), 0u);      // passive
  EXPECT_EQ(u32_at(layout.data_dropped_offset + 4), 1u);  // active: dropped at instantiation
  EXPECT_EQ(u32_at(layout.data_dropped_offset + 8), 0u);
}

}  // namespace
}  // namespace wasmgpu::frontend::testing
