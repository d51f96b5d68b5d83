// Tail calls (tests/kernels/tail_calls.c, built with -mtail-call): return_call
// and return_call_indirect chains tens of thousands of calls long, far past the
// call stack depth, on the device against the same C run natively.
#include "e2e_support.h"

extern "C" {
void tail_calls(int i, const uint32_t* in, uint32_t* out);
}

namespace wasmgpu::e2e {
namespace {

class TailCalls : public EndToEnd {};

TEST_P(TailCalls, DeepTailCallChainsMatchNative) {
  constexpr uint32_t n = 64, in_per_item = 1024, per_item = 6;
  std::vector<uint32_t> in = random_words(n * in_per_item, 25);
  runtime::Buffer ib = buffer_with(in), out = buffer(4ull * n * per_item);
  ASSERT_TRUE(out.fill(0xDEADBEEF).ok());
  Status launched = kernel("tail_calls", "tail_calls").launch(n, 64, {ib, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint32_t> native(size_t(n) * per_item);
  for (uint32_t i = 0; i < n; ++i) tail_calls(int(i), in.data(), native.data());
  EXPECT_TRUE(same_values(read<uint32_t>(out, native.size()), native, per_item));
}

INSTANTIATE_TEST_SUITE_P(OptLevels, TailCalls, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
