// Threads-proposal atomics (C11 atomics compiled with -matomics) on the
// device, against a CPU count of the same values.
#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

class Atomics : public EndToEnd {};

TEST_P(Atomics, HistogramWithC11AtomicsMatchesTheCpu) {
  constexpr uint32_t kBins = 64, kWorkgroup = 64, kGroups = 40;
  const uint32_t n = kWorkgroup * kGroups - 17;  // the last workgroup is partly idle
  std::vector<uint32_t> values = random_words(n, 7);
  for (uint32_t& v : values) v %= 100000;
  runtime::Buffer in = buffer_with(values), bins = buffer(4 * kBins), parity = buffer(4 * kBins), sum = buffer(8),
                  max = buffer_with(std::vector<int64_t>{-1}), halves = buffer(2 * 16), seen = buffer(32);
  // A runtime buffer starts undefined (runtime/device.h): the counters start at zero.
  for (runtime::Buffer* counters : {&bins, &parity, &sum, &halves, &seen}) ASSERT_TRUE(counters->fill(0).ok());
  Status launched = kernel("atomics", "atomic_histogram")
                        .launch(runtime::Grid{kGroups}, runtime::WorkgroupSize{kWorkgroup},
                                {in, n, bins, parity, sum, max, halves, seen});
  ASSERT_TRUE(launched.ok()) << launched.error().message;

  std::vector<uint32_t> expected_bins(kBins), expected_parity(kBins);
  std::vector<uint16_t> expected_halves(16);
  std::vector<uint8_t> expected_seen(32);
  uint64_t expected_sum = 0;
  int64_t expected_max = -1;
  for (uint32_t group = 0; group < kGroups; ++group) {
    std::vector<uint8_t> group_parity(kBins);
    for (uint32_t i = group * kWorkgroup; i < std::min(n, (group + 1) * kWorkgroup); ++i) {
      uint32_t v = values[i];
      ++expected_bins[v % kBins];
      group_parity[v % kBins] ^= 1;
      expected_sum += v;
      ++expected_halves[v % 16];
      expected_seen[v % 32] |= uint8_t(1u << (v / 32 % 8));
      expected_max = std::max<int64_t>(expected_max, int64_t(v) * 1000003);
    }
    for (uint32_t b = 0; b < kBins; ++b) expected_parity[b] += group_parity[b];
  }
  EXPECT_EQ(read<uint32_t>(bins, kBins), expected_bins);
  EXPECT_EQ(read<uint32_t>(parity, kBins), expected_parity);
  EXPECT_EQ(read<uint64_t>(sum, 1)[0], expected_sum);
  EXPECT_EQ(read<int64_t>(max, 1)[0], expected_max);
  EXPECT_EQ(read<uint16_t>(halves, 16), expected_halves);
  EXPECT_EQ(read<uint8_t>(seen, 32), expected_seen);
}

TEST_P(Atomics, MisalignedAtomicTraps) {
  runtime::Buffer p = buffer(4 * 64 + 8);
  Status launched = kernel("atomics", "misaligned_atomic").launch(64, 64, {p});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 5"), std::string::npos)
      << launched.error().message;
  EXPECT_NE(launched.error().message.find("1 invocation"), std::string::npos) << launched.error().message;
}

// memory.atomic.notify wakes no one (nothing can wait on the GPU) and
// returns 0; a misaligned address traps as any atomic's does.
TEST_P(Atomics, NotifyWakesNoneAndMisalignedNotifyTraps) {
  runtime::Buffer p = buffer(4 * 64 + 8), woken = buffer_with(std::vector<uint32_t>(64, 0xFFFFFFFFu));
  Status launched = kernel("atomics", "atomic_notify").launch(64, 64, {p, woken, 0});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(read<uint32_t>(woken, 64), std::vector<uint32_t>(64, 0));

  launched = kernel("atomics", "atomic_notify").launch(64, 64, {p, woken, 1});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 5"), std::string::npos)
      << launched.error().message;
}

INSTANTIATE_TEST_SUITE_P(OptLevels, Atomics, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
