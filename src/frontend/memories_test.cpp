// The layout of memories after the first (multi-memory): offsets in their
// buffer, reserves and grow limits, InstanceState records, and each memory's
// initial bytes from the data segments that target it.
#include "frontend/memories.h"

#include <gtest/gtest.h>

#include <cstring>

#include "abi/launch_abi.h"
#include "frontend/instance_state.h"
#include "frontend/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::frontend::testing {
namespace {

constexpr uint64_t kPage = abi::kPageSize;

TEST(Memories, ExtraMemoriesLayoutAndInstanceRecords) {
  std::vector<uint8_t> bytes = wat_to_wasm(R"((module
    (import "spectest" "memory" (memory 1))
    (memory 2 5)
    (memory 0)
    (memory 1 65536)))",
                                           "--enable-multi-memory");
  Result<wasm::Module> module = wasm::decode_and_validate(bytes);
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_EQ(memory_type(*module, 0)->limits.min, 1u);  // the import comes first
  EXPECT_EQ(memory_type(*module, 1)->limits.min, 2u);
  EXPECT_FALSE(memory_type(*module, 4).has_value());
  const InstanceLayout layout = instance_layout(*module);
  ASSERT_NE(layout.memories_offset, 0u);
  EXPECT_EQ(layout.size, layout.memories_offset + 3 * abi::kExtraMemoryRecordSize);
  const ExtraMemories extra = extra_memories(*module, layout.memories_offset);
  ASSERT_EQ(extra.memories.size(), 3u);
  // Memory 1: its declared maximum. Memory 2: no maximum, 64 MiB. Memory 3:
  // a 4 GiB maximum, capped at 256 MiB.
  EXPECT_EQ(extra.memories[0].index, 1u);
  EXPECT_EQ(extra.memories[0].buffer_offset, 0u);
  EXPECT_EQ(extra.memories[0].reserve_bytes, 5 * kPage);
  EXPECT_EQ(extra.memories[0].limit_pages, 5u);
  EXPECT_EQ(extra.memories[1].buffer_offset, 5 * kPage);
  EXPECT_EQ(extra.memories[1].reserve_bytes, kExtraMemoryReserveWithoutMaximum);
  EXPECT_EQ(extra.memories[1].initial_pages, 0u);
  EXPECT_EQ(extra.memories[1].limit_pages, kExtraMemoryReserveWithoutMaximum / kPage);
  EXPECT_EQ(extra.memories[2].buffer_offset, 5 * kPage + kExtraMemoryReserveWithoutMaximum);
  EXPECT_EQ(extra.buffer_bytes, 5 * kPage + kExtraMemoryReserveWithoutMaximum + extra.memories[2].reserve_bytes);
  EXPECT_EQ(extra.memories[2].reserve_bytes, kExtraMemoryReserveCap);
  EXPECT_EQ(extra.memories[2].limit_pages, kExtraMemoryReserveCap / kPage);
  EXPECT_EQ(extra.memories[2].state_offset, layout.memories_offset + 2 * abi::kExtraMemoryRecordSize);
  // The InstanceState's records hold each memory's initial size and limit.
  Result<std::vector<uint8_t>> state = initial_instance_state(*module, {}, 64 * kPage);
  ASSERT_TRUE(state.ok()) << state.error().message;
  uint32_t pages = 0, limit = 0;
  std::memcpy(&pages, state->data() + extra.memories[0].state_offset + abi::kExtraMemoryPages, 4);
  std::memcpy(&limit, state->data() + extra.memories[0].state_offset + abi::kExtraMemoryLimitPages, 4);
  EXPECT_EQ(pages, 2u);
  EXPECT_EQ(limit, 5u);
  EXPECT_TRUE(module_uses_instance_state(*module));
}

TEST(Memories, OneMemoryHasNoExtraRecords) {
  Result<wasm::Module> module = wasm::decode_and_validate(wat_to_wasm("(module (memory 1))"));
  ASSERT_TRUE(module.ok());
  EXPECT_EQ(instance_layout(*module).memories_offset, 0u);
  EXPECT_TRUE(extra_memories(*module, 0).memories.empty());
  EXPECT_FALSE(module_uses_instance_state(*module));
}

TEST(Memories, DataSegmentsGoToTheirOwnMemory) {
  std::vector<uint8_t> bytes = wat_to_wasm(R"((module
    (memory $a 1)
    (memory $b 1)
    (data (memory $a) (i32.const 4) "xy")
    (data (memory $b) (i32.const 8) "z")))",
                                           "--enable-multi-memory");
  Result<wasm::Module> module = wasm::decode_and_validate(bytes);
  ASSERT_TRUE(module.ok()) << module.error().message;
  Result<std::vector<uint8_t>> a = initial_memory_image(*module, 0), b = initial_memory_image(*module, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), kPage);
  ASSERT_EQ(b->size(), kPage);
  EXPECT_EQ((*a)[4], 'x');
  EXPECT_EQ((*a)[5], 'y');
  EXPECT_EQ((*a)[8], 0);
  EXPECT_EQ((*b)[8], 'z');
  EXPECT_EQ((*b)[4], 0);
}

TEST(Memories, ASegmentPastItsMemoryIsRefusedNamingIt) {
  std::vector<uint8_t> bytes = wat_to_wasm(R"((module
    (memory 1)
    (memory 0)
    (data (memory 1) (i32.const 0) "a")))",
                                           "--enable-multi-memory");
  Result<wasm::Module> module = wasm::decode_and_validate(bytes);
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_TRUE(initial_memory_image(*module, 0).ok());
  Result<std::vector<uint8_t>> image = initial_memory_image(*module, 1);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.error().message, "data segment 0 (1 bytes at offset 0) does not fit in memory 1's 0-byte memory");
}

}  // namespace
}  // namespace wasmgpu::frontend::testing
