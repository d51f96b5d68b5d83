// Proven shared accesses (docs/compiler.md, "Proven shared accesses"):
// tests/kernels/shared_proofs.c indexes a shared tile by the local index
// (proven for workgroups of at most 256 invocations) and in a counted loop
// (proven for any). Where the proof holds its range check is a
// specialization constant the driver folds; a workgroup of 512 must run the
// check, and the invocations past the tile reach the module memory behind it.
#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

class SharedProofs : public EndToEnd {
 protected:
  // What invocation `i` writes in a workgroup of `group` invocations: its
  // own word, then eight words of row (l & 7), each word w holding w * 3 + 1.
  static std::vector<uint32_t> expected(unsigned n, unsigned group) {
    std::vector<uint32_t> out(n);
    for (unsigned i = 0; i < n; ++i) {
      const unsigned l = i % group;
      uint32_t sum = l * 3 + 1;
      for (unsigned k = 0; k < 8; ++k) sum = sum * 7 + ((l & 7) * 8 + k) * 3 + 1;
      out[i] = sum;
    }
    return out;
  }

  void run_with_group(unsigned group) {
    const unsigned n = group * 3;
    runtime::Buffer out = buffer(4 * n);
    Status launched = kernel("shared_proofs", "shared_proofs").launch(n, group, {out});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    EXPECT_EQ(read<uint32_t>(out, n), expected(n, group)) << "workgroups of " << group;
  }
};

TEST_P(SharedProofs, HoldForSmallWorkgroups) {
  if (std::string(GetParam()) == "O2") {
    // The tile store and its read back, the loop's read.
    const spirv::AccessPathCounts& paths = kernel("shared_proofs", "shared_proofs").info().memory_access_paths;
    EXPECT_EQ(paths.proven_shared, 3u);
  }
  run_with_group(64);
  run_with_group(256);
}

INSTANTIATE_TEST_SUITE_P(OptLevels, SharedProofs, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

// O2 only: at O0 the kernel keeps its locals on the shadow stack, which lies
// right behind the tile, so invocations past the tile would write into it.
using SharedProofsAtO2 = SharedProofs;

TEST_P(SharedProofsAtO2, LargerWorkgroupsRunTheChecks) { run_with_group(512); }

INSTANTIATE_TEST_SUITE_P(OptLevels, SharedProofsAtO2, ::testing::Values("O2"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
