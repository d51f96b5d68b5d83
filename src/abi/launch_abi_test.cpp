#include "abi/launch_abi.h"

#include <gtest/gtest.h>

namespace wasmgpu::abi {
namespace {

using W = ArgWidth;

// triad(i, a, b, c, s, n): five 4-byte values, then the regions of a, b and c;
// n's region no longer fits.
TEST(PushLayout, ValuesFirstThenRegionsWhileTheyFit) {
  const ArgWidth args[] = {W::Pointer, W::Pointer, W::Pointer, W::Word, W::Pointer};
  PushLayout layout = push_layout(args);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(layout.value[i], kPushArgsCopy + 4 * i);
  EXPECT_EQ(layout.region[0], 48u);
  EXPECT_EQ(layout.region[1], 72u);
  EXPECT_EQ(layout.region[2], 96u);
  EXPECT_EQ(layout.region[3], std::nullopt);  // f32: no region
  EXPECT_EQ(layout.region[4], std::nullopt);  // 120 + 24 > 128
}

TEST(PushLayout, EightByteValuesAreAlignedAndWhatDoesNotFitStaysInTheLaunchBlock) {
  const ArgWidth args[] = {W::Word, W::Double, W::Pointer};
  PushLayout layout = push_layout(args);
  EXPECT_EQ(layout.value[0], 24u);
  EXPECT_EQ(layout.value[1], 32u);  // 8-aligned
  EXPECT_EQ(layout.value[2], 40u);
  EXPECT_EQ(layout.region[2], 48u);

  std::vector<ArgWidth> many(30, W::Word);
  many.push_back(W::Double);
  layout = push_layout(many);
  for (uint32_t i = 0; i < 26; ++i) EXPECT_EQ(layout.value[i], kPushArgsCopy + 4 * i);
  for (uint32_t i = 26; i < 31; ++i) EXPECT_EQ(layout.value[i], std::nullopt);
  for (const auto& at : layout.value)
    if (at) EXPECT_LE(*at + 4, kPushConstantsSize);
}

}  // namespace
}  // namespace wasmgpu::abi
