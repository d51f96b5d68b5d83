// Grouped accesses in the emitted SPIR-V: one range check per group, a
// 16-byte vector load or store for four aligned words of a pointer argument,
// one base index for a shared-memory row. (tests/e2e/pointer_params_test.cpp and the bench
// kernels check the values, including groups that fail their check.)
#include <gtest/gtest.h>

#include <iterator>
#include <regex>

#include "spirv/compiler.h"
#include "spirv/test_util.h"
#include "wasm/decoder.h"

namespace wasmgpu::spirv {
namespace {

// The kernel's disassembly; `paths` receives its access-path counts.
std::string compiled_text(const std::string& wat, AccessPathCounts* paths = nullptr, CompileOptions options = {}) {
  auto module = wasm::decode(testing::wat_to_wasm(wat));
  EXPECT_TRUE(module.ok());
  if (!module.ok()) return {};
  auto compiled = compile_kernel(*module, "k", options);
  EXPECT_TRUE(compiled.ok()) << (compiled.ok() ? "" : compiled.error().to_string());
  if (!compiled.ok()) return {};
  EXPECT_TRUE(validate(compiled->words).ok());
  if (paths) *paths = compiled->info.memory_access_paths;
  return testing::disassembly(*compiled);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// dst[i] = p[0] + p[1] + p[2] + p[3] for p = src + 16 i, p = `base`.
std::string sum_of_four(const std::string& base) {
  return R"(
  (func (export "k") (param $i i32) (param $src i32) (param $dst i32)
    (local $p i32)
    (local.set $p )" +
         base + R"()
    (i32.store (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 2)))
      (i32.add (i32.add (i32.load offset=4 (local.get $p)) (i32.load (local.get $p)))
               (i32.add (i32.load offset=12 (local.get $p)) (i32.load offset=8 (local.get $p)))))))";
}

TEST(GroupedLoads, FourAlignedWordsOfAnArgumentAreOneVectorLoad) {
  AccessPathCounts paths;
  std::string text = compiled_text(
      "(module (memory 1)" + sum_of_four("(i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 4)))") + ")",
      &paths);
  EXPECT_EQ(paths.parameter, 5u);  // the four loads and the store
  EXPECT_EQ(paths.grouped, 4u);
  EXPECT_EQ(paths.wide, 1u);
  EXPECT_EQ(count(text, "OpLoad %v4uint"), 1u) << text;
  EXPECT_NE(text.find("Aligned 16"), std::string::npos);
  // Loads of u32 in the kernel function: none left from the four members
  // (the general path's helper has its own).
  std::string kernel = text.substr(text.find("%k = OpFunction"));
  kernel = kernel.substr(0, kernel.find("OpFunctionEnd"));
  EXPECT_EQ(count(kernel, "OpConvertUToPtr %_ptr_PhysicalStorageBuffer_uint "), 1u) << kernel;  // the store
}

// The kernel function's text, without the helpers after it.
std::string kernel_function(const std::string& text) {
  std::string kernel = text.substr(text.find("%k = OpFunction"));
  return kernel.substr(0, kernel.find("OpFunctionEnd"));
}

// Fast mode loads a parameter group, and every mode a single parameter
// load, only where the check holds; exact mode loads a group speculatively,
// at the LaunchBlock where the check fails (docs/compiler.md, "Access
// groups"; measured on the H200).
TEST(GroupedLoads, FastModeLoadsBehindTheCheckExactModeGroupsSpeculatively) {
  const std::string group =
      "(module (memory 1)" + sum_of_four("(i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 4)))") + ")";
  const std::string single = R"((module (memory 1)
    (func (export "k") (param $i i32) (param $src i32) (param $dst i32)
      (i32.store (local.get $dst) (i32.load (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2))))))))";
  CompileOptions fast;
  fast.float_mode = FloatMode::Fast;
  const std::string fast_group = kernel_function(compiled_text(group, nullptr, fast));
  const std::string exact_group = kernel_function(compiled_text(group));
  EXPECT_EQ(count(fast_group, "OpLoad %v4uint"), 1u);
  EXPECT_EQ(count(exact_group, "OpLoad %v4uint"), 1u);
  EXPECT_EQ(count(fast_group, "OpLoad %ulong %launch_block"), 0u) << fast_group;
  EXPECT_EQ(count(exact_group, "OpLoad %ulong %launch_block"), 1u) << exact_group;
  EXPECT_EQ(count(exact_group, "OpSelect %ulong"), 1u) << exact_group;
  for (const CompileOptions& options : {fast, CompileOptions{}}) {
    const std::string kernel = kernel_function(compiled_text(single, nullptr, options));
    EXPECT_EQ(count(kernel, "OpLoad %ulong %launch_block"), 0u) << kernel;
    EXPECT_EQ(count(kernel, "OpSelect %ulong"), 0u) << kernel;
  }
}

// p = src + 4 i: 4-aligned, and 16-aligned for some i only. Where the
// device can vote, the words are one 16-byte load when the whole subgroup's
// addresses are aligned, else four word loads; without votes, always words.
TEST(GroupedLoads, AlignmentKnownAtRunTimeVotesForOneVectorLoad) {
  const std::string wat =
      "(module (memory 1)" + sum_of_four("(i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2)))") + ")";
  AccessPathCounts paths;
  std::string kernel = kernel_function(compiled_text(wat, &paths));
  EXPECT_EQ(paths.wide, 0u);
  EXPECT_EQ(paths.wide_when_aligned, 1u);
  EXPECT_EQ(count(kernel, "OpGroupNonUniformAll %bool %uint_3"), 1u) << kernel;  // Subgroup scope
  EXPECT_EQ(count(kernel, "OpLoad %v4uint"), 1u) << kernel;
  EXPECT_EQ(count(kernel, "Aligned 16"), 1u) << kernel;
  EXPECT_EQ(count(kernel, "Aligned 4"), 5u) << kernel;                   // the word loads and the store
  EXPECT_EQ(count(kernel, "OpFunctionCall %uint %wasmgpu_load32"), 4u);  // each member's general path

  CompileOptions no_votes;
  no_votes.subgroup_vote = false;
  kernel = kernel_function(compiled_text(wat, &paths, no_votes));
  EXPECT_EQ(paths.wide_when_aligned, 0u);
  EXPECT_EQ(count(kernel, "OpGroupNonUniformAll"), 0u);
  EXPECT_EQ(count(kernel, "OpLoad %v4uint"), 0u);
  EXPECT_EQ(count(kernel, "Aligned 4"), 5u) << kernel;
  EXPECT_EQ(count(kernel, "OpFunctionCall %uint %wasmgpu_load32"), 4u);
}

// p = src + 16 i + 4: never 16-aligned, so no vote and no 16-byte load.
TEST(GroupedLoads, KnownMisalignmentGivesWordLoads) {
  AccessPathCounts paths;
  std::string kernel = kernel_function(compiled_text(
      "(module (memory 1)" +
          sum_of_four("(i32.add (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 4))) (i32.const 4))") +
          ")",
      &paths));
  EXPECT_EQ(paths.grouped, 4u);
  EXPECT_EQ(paths.wide_when_aligned, 0u);
  EXPECT_EQ(paths.wide, 1u);  // the words at +8 and +12, 8-aligned: one uvec2
  EXPECT_EQ(count(kernel, "OpGroupNonUniformAll"), 0u);
  EXPECT_EQ(count(kernel, "OpLoad %v4uint"), 0u) << kernel;
}

TEST(GroupedLoads, ASharedRowIsReadAtOneBaseIndex) {
  std::string zeros;
  for (int i = 0; i < 256; ++i) zeros += "\\00";
  std::string text =
      compiled_text("(module (memory 1) (data $.wasmgpu_shared.tile (i32.const 1024) \"" + zeros + "\")" +
                    sum_of_four("(i32.add (i32.const 1024) (i32.shl (i32.and (local.get $i) "
                                "(i32.const 15)) (i32.const 4)))") +
                    ")");
  std::string kernel = text.substr(text.find("%k = OpFunction"));
  kernel = kernel.substr(0, kernel.find("OpFunctionEnd"));
  EXPECT_EQ(count(kernel, "OpAccessChain %_ptr_Workgroup_uint %wasmgpu_shared"), 4u) << kernel;
  EXPECT_EQ(count(kernel, "UMin"), 0u);  // no per-access clamp
  // The base index is visibly a multiple of 4: (offset >> 2) & ~3, the form
  // NVIDIA's compiler turns into one 16-byte access (grouped_accesses.cpp).
  const std::regex base(R"(OpBitwiseAnd %uint %\d+ %uint_4294967292\n)");
  EXPECT_EQ(std::distance(std::sregex_iterator(kernel.begin(), kernel.end(), base), std::sregex_iterator()), 1)
      << kernel;
  EXPECT_EQ(count(kernel, "OpShiftLeftLogical %uint"), 2u) << kernel;  // the kernel's own (i << 4, i << 2)
}

TEST(GroupedStores, FourAlignedWordsOfAnArgumentAreOneVectorStore) {
  // q = dst + 16 i; q[3], q[2], q[1], q[0] = i, i + 1, i + 2, i + 3.
  std::string text = compiled_text(R"((module (memory 1)
  (func (export "k") (param $i i32) (param $dst i32)
    (local $q i32)
    (i32.store offset=12 (local.tee $q (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 4))))
                         (local.get $i))
    (i32.store offset=8 (local.get $q) (i32.add (local.get $i) (i32.const 1)))
    (i32.store offset=4 (local.get $q) (i32.add (local.get $i) (i32.const 2)))
    (i32.store (local.get $q) (i32.add (local.get $i) (i32.const 3))))))");
  std::string kernel = text.substr(text.find("%k = OpFunction"));
  kernel = kernel.substr(0, kernel.find("OpFunctionEnd"));
  EXPECT_EQ(count(kernel, "OpCompositeConstruct %v4uint"), 1u) << kernel;
  EXPECT_EQ(count(kernel, "Aligned 16"), 1u);
  EXPECT_EQ(count(kernel, "OpFunctionCall %void %wasmgpu_store32"), 4u);  // each member's general path
}

}  // namespace
}  // namespace wasmgpu::spirv
