// Recursive C kernels (direct, mutual, through function pointers) on the
// device, compared with native runs; deep recursion traps with call stack
// exhaustion at the depth chosen when the module is loaded.
#include <fstream>
#include <iterator>

#include "e2e_support.h"

extern "C" {
void recursion(int i, const uint32_t* in, uint32_t* out);
void nest_depth(int i, const uint32_t* depths, uint32_t* out);
}

namespace wasmgpu::e2e {
namespace {

class Recursion : public EndToEnd {
 protected:
  // tests/kernels/recursion.c at this test's level, loaded with `depth` as the call stack depth.
  runtime::Module load_with_depth(uint32_t depth) {
    std::ifstream in(kernels_dir() + "/recursion." + GetParam() + ".wasm", std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    spirv::CompileOptions options;
    options.max_call_depth = depth;
    auto module = runtime::Module::load(*device_, bytes, options);
    EXPECT_TRUE(module.ok()) << (module.ok() ? "" : module.error().to_string());
    return std::move(module).value();
  }

  // nest_depth over `depths`; the launch's status, and on success the results.
  Status run_nest(runtime::Module& module, const std::vector<uint32_t>& depths, std::vector<uint32_t>* results) {
    auto kernel = module.kernel("nest_depth");
    EXPECT_TRUE(kernel.ok()) << (kernel.ok() ? "" : kernel.error().to_string());
    runtime::Buffer db = buffer_with(depths), out = buffer(4 * depths.size());
    Status launched = (*kernel)->launch(uint32_t(depths.size()), 64, {db, out});
    if (launched.ok() && results) *results = read<uint32_t>(out, depths.size());
    return launched;
  }

  static std::vector<uint32_t> native_nest(const std::vector<uint32_t>& depths) {
    std::vector<uint32_t> native(depths.size());
    for (size_t i = 0; i < depths.size(); ++i) nest_depth(int(i), depths.data(), native.data());
    return native;
  }
};

TEST_P(Recursion, RecursiveKernelsMatchNative) {
  constexpr uint32_t n = 128, in_per_item = 40, per_item = 12;
  std::vector<uint32_t> in = random_words(n * in_per_item, 11);
  runtime::Buffer ib = buffer_with(in), out = buffer(4ull * n * per_item);
  ASSERT_TRUE(out.fill(0xDEADBEEF).ok());
  Status launched = kernel("recursion", "recursion").launch(n, 64, {ib, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint32_t> native(size_t(n) * per_item);
  for (uint32_t i = 0; i < n; ++i) recursion(int(i), in.data(), native.data());
  EXPECT_TRUE(same_values(read<uint32_t>(out, native.size()), native, per_item));
}

TEST_P(Recursion, DeepRecursionTrapsWithCallStackExhaustion) {
  runtime::Module module = load_with_depth(spirv::kDefaultCallStackDepth);
  std::vector<uint32_t> depths{10, 100000, 1000, 5000};
  Status launched = run_nest(module, depths, nullptr);
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("call stack exhausted at invocation 1 (2 invocations trapped)"),
            std::string::npos)
      << launched.error().message;

  // The device still works, and recursion within the bound gives native results.
  depths = {10, 1024, 1000, 0};
  std::vector<uint32_t> results;
  launched = run_nest(module, depths, &results);
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_TRUE(same_values(results, native_nest(depths)));
}

TEST_P(Recursion, TheDepthChosenAtLoadMovesTheLimit) {
  runtime::Module shallow = load_with_depth(50);
  std::vector<uint32_t> results;
  Status launched = run_nest(shallow, {50, 3, 0}, &results);
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_TRUE(same_values(results, native_nest({50, 3, 0})));
  launched = run_nest(shallow, {50, 51}, nullptr);
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("call stack exhausted at invocation 1 (1 invocation"), std::string::npos)
      << launched.error().message;

  runtime::Module deep = load_with_depth(3000);
  std::vector<uint32_t> depths{2999, 3000, 1500};
  launched = run_nest(deep, depths, &results);
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_TRUE(same_values(results, native_nest(depths)));
}

INSTANTIATE_TEST_SUITE_P(OptLevels, Recursion, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
