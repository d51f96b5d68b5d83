// Speculative shared-memory reads (docs/compiler.md, "Memory access paths"):
// tests/kernels/shared_tables.c reads float and double shared tiles and
// static tables at run-time indices. The shared words are loaded at a clamped
// index before the range check; a table read outside the shared range must
// still get the module memory's value.
#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

constexpr unsigned kGroup = 64, kGroups = 5;

class SharedTables : public EndToEnd {};

TEST_P(SharedTables, SharedTilesAndStaticTablesReadTheirOwnWords) {
  if (std::string(GetParam()) == "O2") {
    const spirv::AccessPathCounts& paths = kernel("shared_tables", "shared_tables").info().memory_access_paths;
    EXPECT_EQ(paths.translated, 0u);
    EXPECT_GE(paths.indexed, 6u);  // two tables, two tile stores, two tile loads, the table in the sum
  }
  const unsigned n = kGroup * kGroups;
  std::vector<float> in(n);
  std::vector<uint32_t> words = random_words(n, 21);
  for (unsigned i = 0; i < n; ++i) in[i] = float(words[i] % 1000) / 8.0f - 60.0f;
  runtime::Buffer input = buffer_with(in), out = buffer(8 * n);
  Status launched = kernel("shared_tables", "shared_tables").launch(n, kGroup, {input, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;

  const float scale[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const double offset[8] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5};
  std::vector<double> expected(n);
  for (unsigned g = 0; g < kGroups; ++g) {
    float tile[kGroup];
    double wide[kGroup];
    for (unsigned l = 0; l < kGroup; ++l) {
      const unsigned i = g * kGroup + l;
      tile[l] = in[i] * scale[i % 16];
      wide[l] = double(in[i]) + offset[i % 8];
    }
    for (unsigned l = 0; l < kGroup; ++l)
      expected[g * kGroup + l] = double(tile[(l * 5 + 3) % kGroup]) + wide[kGroup - 1 - l] * offset[l % 8];
  }
  EXPECT_TRUE(same_values(read<double>(out, n), expected));
}

INSTANTIATE_TEST_SUITE_P(OptLevels, SharedTables, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
