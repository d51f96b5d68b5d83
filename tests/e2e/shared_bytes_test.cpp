// Sub-word stores, memset and memcpy on workgroup-shared memory
// (tests/kernels/shared_bytes.c), compared with the same steps on the CPU.
// Shared memory is an array of 32-bit words, so 1- and 2-byte stores are
// read-modify-writes of a word; here neighbouring bytes belong to different
// invocations writing at once, and none may be lost.
#include <cstring>

#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

constexpr unsigned kGroup = 64, kGroups = 6, kSharedBytes = 1024;

// What one workgroup's shared memory holds at the end: bytes[256],
// halves[128] (little-endian), scratch[512], end to end.
std::vector<uint8_t> expected_shared(const uint8_t* in, unsigned group) {
  uint8_t bytes[4 * kGroup];
  uint16_t halves[2 * kGroup];
  uint8_t scratch[8 * kGroup];
  for (unsigned lid = 0; lid < kGroup; ++lid) {
    uint8_t seed = in[group * kGroup + lid];
    for (unsigned k = 0; k < 4; ++k) bytes[k * kGroup + lid] = uint8_t(seed + 7 * k + group);
    halves[lid] = uint16_t(seed * 257u + group);
    halves[kGroup + lid] = uint16_t(lid * 1000u + 1u);
    std::memset(scratch + lid * 8, 0x11 * (lid % 15), 8);
    std::memset(scratch + lid * 8 + 1 + lid % 3, seed, 1 + lid % 4);
  }
  for (unsigned lid = 0; lid < kGroup; ++lid) {  // after the barrier
    unsigned length = 1 + lid % 3;
    std::memcpy(scratch + lid * 8 + 8 - length, bytes + (lid * 3 + 1) % (4 * kGroup - 3), length);
  }
  std::vector<uint8_t> all(kSharedBytes);
  std::memcpy(all.data(), bytes, sizeof bytes);
  std::memcpy(all.data() + sizeof bytes, halves, sizeof halves);
  std::memcpy(all.data() + sizeof bytes + sizeof halves, scratch, sizeof scratch);
  return all;
}

class SharedBytes : public EndToEnd {};

TEST_P(SharedBytes, SubWordStoresMemsetAndMemcpyMatchTheCpu) {
  std::vector<uint8_t> in(kGroup * kGroups);
  std::vector<uint32_t> words = random_words(in.size(), 11);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(words[i] ^ (words[i] >> 13));
  runtime::Buffer input = buffer_with(in);
  runtime::Buffer out = buffer(kSharedBytes * kGroups);
  ASSERT_TRUE(out.fill(0xDEADBEEF).ok());
  Status launched = kernel("shared_bytes", "shared_bytes").launch(kGroup * kGroups, kGroup, {input, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint8_t> gpu = read<uint8_t>(out, kSharedBytes * kGroups);
  std::vector<uint8_t> native;
  for (unsigned g = 0; g < kGroups; ++g) {
    std::vector<uint8_t> group = expected_shared(in.data(), g);
    native.insert(native.end(), group.begin(), group.end());
  }
  EXPECT_TRUE(same_values(gpu, native, kSharedBytes));
}

INSTANTIATE_TEST_SUITE_P(OptLevels, SharedBytes, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
