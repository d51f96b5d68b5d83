// Shadow-stack frames of many shapes (tests/kernels/stack_frames.c) at -O0
// and -O2: the results match native runs, so no frame was given less stack
// than it uses, and frames of constant size are bounded rather than given the
// module's whole stack region.
#include "e2e_support.h"

extern "C" {
void frames(int i, const uint32_t* in, uint32_t* out);
void sized_at_run_time(int i, const uint32_t* in, uint32_t* out);
}

namespace wasmgpu::e2e {
namespace {

// At most 256 invocations: `frames` gives each its own .bss slot.
constexpr uint32_t kInvocations = 200;

using NativeKernel = void (*)(int, const uint32_t*, uint32_t*);

class StackFrames : public EndToEnd {
 protected:
  // Runs `export_name` over kInvocations random words, `per_item` results
  // each, and compares them with `native`; the kernel, for its stack facts.
  runtime::Kernel& run_and_compare(const std::string& export_name, NativeKernel native, size_t per_item,
                                   uint32_t seed) {
    std::vector<uint32_t> in = random_words(kInvocations, seed);
    runtime::Buffer ib = buffer_with(in), out = buffer(4ull * kInvocations * per_item);
    EXPECT_TRUE(out.fill(0xDEADBEEF).ok());
    runtime::Kernel& k = kernel("stack_frames", export_name);
    Status launched = k.launch(kInvocations, 64, {ib, out});
    EXPECT_TRUE(launched.ok()) << (launched.ok() ? "" : launched.error().message);
    std::vector<uint32_t> expected(in.size() * per_item);
    for (size_t i = 0; i < in.size(); ++i) native(int(i), in.data(), expected.data());
    EXPECT_TRUE(same_values(read<uint32_t>(out, expected.size()), expected, per_item));
    return k;
  }
};

TEST_P(StackFrames, ConstantFramesMatchNativeAndAreBounded) {
  runtime::Kernel& k = run_and_compare("frames", frames, 6, 41);
  // big_inner's 2 KiB array below big_outer's 1 KiB one, at the least; far
  // less than the module's 64 KiB region, which only an unbounded frame gets.
  const uint32_t slot = k.info().stack_slot_size;
  EXPECT_GE(slot, 3u * 1024);
  EXPECT_LT(slot, 16u * 1024) << "a bounded kernel got most of the region";
}

TEST_P(StackFrames, RunTimeSizedFramesMatchNativeWithTheWholeRegion) {
  runtime::Kernel& k = run_and_compare("sized_at_run_time", sized_at_run_time, 4, 42);
  // alloca and VLAs move the stack pointer by a run-time amount: the slot
  // is the module's whole stack region (docs/memory-model.md).
  EXPECT_EQ(k.info().stack_slot_size, 64u * 1024) << "wasm-ld's default stack is 64 KiB";
}

INSTANTIATE_TEST_SUITE_P(OptLevels, StackFrames, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
