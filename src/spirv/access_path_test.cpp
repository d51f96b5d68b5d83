#include "spirv/access_path.h"

#include <gtest/gtest.h>

#include "abi/launch_abi.h"

namespace wasmgpu::spirv {
namespace {

constexpr uint64_t kPage = 65536;

TEST(AccessPath, ConstantRangesInsideTheInitialMemoryNeedNoCheck) {
  AddressFacts facts{.initial_memory_bytes = 2 * kPage};
  EXPECT_EQ(access_path(facts, 0, 4), AccessPath::Direct);
  EXPECT_EQ(access_path(facts, 2 * kPage - 8, 8), AccessPath::Direct);  // ends exactly at the size
  EXPECT_EQ(access_path(facts, 2 * kPage, 0), AccessPath::Direct);      // an empty fill at the end
}

TEST(AccessPath, ConstantRangesPastTheInitialSizeAreBoundsChecked) {
  AddressFacts facts{.initial_memory_bytes = kPage};
  EXPECT_EQ(access_path(facts, kPage - 2, 4), AccessPath::BoundsChecked);  // crosses the end
  EXPECT_EQ(access_path(facts, 5 * kPage, 1), AccessPath::BoundsChecked);  // memory may have grown
  EXPECT_EQ(access_path(facts, abi::kBufferAddressBase - 1, 4), AccessPath::BoundsChecked);
  AddressFacts none{};  // a memory of 0 pages
  EXPECT_EQ(access_path(none, 0, 1), AccessPath::BoundsChecked);
}

TEST(AccessPath, BufferAddressesAndUnknownAddressesAreTranslated) {
  AddressFacts facts{.initial_memory_bytes = kPage};
  EXPECT_EQ(access_path(facts, abi::kBufferAddressBase, 4), AccessPath::Translated);
  EXPECT_EQ(access_path(facts, std::nullopt, 4), AccessPath::Translated);
  EXPECT_EQ(access_path(facts, 0, std::nullopt), AccessPath::Translated);  // fill of unknown length
}

TEST(AccessPath, StackAndSharedRangesAreTranslated) {
  AddressFacts facts{.initial_memory_bytes = 4 * kPage,
                     .stack_lo = kPage,
                     .stack_hi = 2 * kPage,
                     .shared_lo = 3 * kPage,
                     .shared_hi = 3 * kPage + 256};
  EXPECT_EQ(access_path(facts, kPage - 2, 4), AccessPath::Translated);        // straddles the stack's start
  EXPECT_EQ(access_path(facts, kPage + 100, 4), AccessPath::Translated);      // inside the stack
  EXPECT_EQ(access_path(facts, 2 * kPage, 4), AccessPath::Direct);            // just past the stack
  EXPECT_EQ(access_path(facts, 3 * kPage + 252, 8), AccessPath::Translated);  // straddles shared's end
  EXPECT_EQ(access_path(facts, 3 * kPage + 256, 8), AccessPath::Direct);
  EXPECT_EQ(access_path(facts, kPage - 4, 4), AccessPath::Direct);  // just below the stack
}

TEST(AccessPath, CountsAddUp) {
  AccessPathCounts counts;
  for (AccessPath path : {AccessPath::Direct, AccessPath::Direct, AccessPath::BoundsChecked, AccessPath::Translated})
    counts.add(path);
  EXPECT_EQ(counts.direct, 2u);
  EXPECT_EQ(counts.bounds_checked, 1u);
  EXPECT_EQ(counts.translated, 1u);
  EXPECT_EQ(counts.total(), 4u);
}

}  // namespace
}  // namespace wasmgpu::spirv
