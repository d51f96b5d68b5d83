#include "runtime/address_allocator.h"

#include <gtest/gtest.h>

namespace wasmgpu::runtime {
namespace {

constexpr uint64_t kK = 1024;

TEST(AddressAllocator, FirstAllocationStartsAtBufferBase) {
  AddressAllocator allocator;
  EXPECT_EQ(allocator.allocate(100), abi::kBufferAddressBase);
}

TEST(AddressAllocator, AlignsAndLeavesAGuardAfterEachBuffer) {
  AddressAllocator allocator;
  const uint32_t a = *allocator.allocate(100);
  const uint32_t b = *allocator.allocate(64 * kK);      // exactly one alignment unit
  const uint32_t c = *allocator.allocate(64 * kK + 1);  // one byte more
  const uint32_t d = *allocator.allocate(0);
  for (uint32_t base : {a, b, c, d}) EXPECT_EQ(base % abi::kBufferAlignment, 0u);
  EXPECT_EQ(b, a + 64 * kK + abi::kBufferGuard);
  EXPECT_EQ(c, b + 64 * kK + abi::kBufferGuard);
  EXPECT_EQ(d, c + 128 * kK + abi::kBufferGuard);
  EXPECT_GE(uint64_t(b) - (a + 100), abi::kBufferGuard);
  EXPECT_EQ(allocator.allocation_count(), 4u);
}

TEST(AddressAllocator, ReusesFreedGapsFirstFit) {
  AddressAllocator allocator;
  const uint32_t a = *allocator.allocate(256 * kK);
  const uint32_t b = *allocator.allocate(10);
  const uint32_t c = *allocator.allocate(10);
  allocator.free(a);
  // Fits in a's gap (256 KiB + guard): first fit puts it at a.
  EXPECT_EQ(allocator.allocate(100 * kK), a);
  // What is left of a's gap (128 KiB) is too small for 200 KiB plus its guard.
  const uint32_t e = *allocator.allocate(200 * kK);
  EXPECT_GT(e, c);
  // ... but takes a small buffer: first fit, lowest address first.
  EXPECT_EQ(allocator.allocate(1), a + 192 * kK);
  allocator.free(b);
  EXPECT_EQ(allocator.allocate(1), b);
}

TEST(AddressAllocator, ExhaustionAndRecovery) {
  AddressAllocator allocator;
  const uint64_t space = abi::kAddressSpaceEnd - abi::kBufferAddressBase;
  // The largest single buffer leaves room for its guard.
  EXPECT_EQ(allocator.largest_free_size(), space - abi::kBufferGuard);
  EXPECT_FALSE(allocator.allocate(space - abi::kBufferGuard + 1));
  const uint32_t big = *allocator.allocate(space - abi::kBufferGuard);
  EXPECT_FALSE(allocator.allocate(1));
  EXPECT_EQ(allocator.largest_free_size(), 0u);
  allocator.free(big);
  EXPECT_EQ(allocator.reserved_bytes(), 0u);
  // A size that does not fit in 32 bits at all.
  EXPECT_FALSE(allocator.allocate(uint64_t(1) << 40));
  EXPECT_TRUE(allocator.allocate(1));
}

TEST(AddressAllocator, ManyBuffersFillTheSpace) {
  AddressAllocator allocator(0, 1024 * kK);  // 16 units of 64 KiB
  // Each 1-byte buffer takes 64 KiB plus a 64 KiB guard: 8 fit.
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(allocator.allocate(1)) << i;
  EXPECT_FALSE(allocator.allocate(1));
}

}  // namespace
}  // namespace wasmgpu::runtime
