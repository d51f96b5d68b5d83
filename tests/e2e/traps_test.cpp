// Traps reach the host as errors naming the trap, the kernel, the lowest
// trapping invocation and how many trapped; the host keeps running.
#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

class Traps : public EndToEnd {};

// The launch failed, and its message contains `text`.
void expect_trap(const Status& launched, const std::string& text) {
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find(text), std::string::npos) << launched.error().message;
}

TEST_P(Traps, DivisionByZeroNamesKindKernelLowestIndexAndCount) {
  const uint32_t n = 256;
  std::vector<int32_t> num(n, 100), den(n, 5);
  den[37] = 0, den[200] = 0, den[201] = 0;
  runtime::Buffer nb = buffer_with(num), db = buffer_with(den), out = buffer(4 * n);
  Status launched = kernel("traps", "divide").launch(n, 64, {nb, db, out});
  ASSERT_FALSE(launched.ok());
  const std::string& message = launched.error().message;
  EXPECT_NE(message.find("divide"), std::string::npos) << message;
  EXPECT_NE(message.find("integer divide by zero"), std::string::npos) << message;
  EXPECT_NE(message.find("invocation 37"), std::string::npos) << message;
  EXPECT_NE(message.find("3 invocations trapped"), std::string::npos) << message;

  // The device still works: the same kernel without zero divisors.
  den[37] = den[200] = den[201] = 1;
  ASSERT_TRUE(db.write(den).ok());
  launched = kernel("traps", "divide").launch(n, 64, {nb, db, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(read<int32_t>(out, n)[37], 100);
}

TEST_P(Traps, SignedOverflowInDivisionTraps) {
  std::vector<int32_t> num{7, INT32_MIN}, den{1, -1};
  runtime::Buffer nb = buffer_with(num), db = buffer_with(den), out = buffer(8);
  Status launched = kernel("traps", "divide").launch(2, 64, {nb, db, out});
  expect_trap(launched, "integer overflow at invocation 1");
}

TEST_P(Traps, AccessOutsideEveryBufferTrapsInsteadOfTouchingANeighbour) {
  runtime::Buffer victim = buffer(64);
  ASSERT_TRUE(victim.fill(0x11111111).ok());
  runtime::Buffer out = buffer(4 * 4);
  const uint32_t base = *victim.wasm_address();
  // In bounds, in bounds at the last word, just past the end (the guard gap), far away.
  std::vector<uint32_t> addresses{base, base + 60, base + 64, 0xFFFFFFF0u};
  runtime::Buffer ab = buffer_with(addresses);
  Status launched = kernel("traps", "read_at").launch(4, 64, {ab, out});
  expect_trap(launched, "out of bounds memory access at invocation 2 (2 invocations trapped)");
  // An access straddling the end of a buffer traps too.
  addresses = {base + 62};
  ASSERT_TRUE(ab.write(addresses).ok());
  launched = kernel("traps", "read_at").launch(1, 64, {ab, out});
  expect_trap(launched, "out of bounds");
}

TEST_P(Traps, UnreachableTraps) {
  const uint32_t n = 1000;
  std::vector<uint32_t> flags(n, 0);
  flags[999] = 1;
  flags[512] = 1;
  runtime::Buffer fb = buffer_with(flags), out = buffer(4 * n);
  Status launched = kernel("traps", "trap_when").launch(n, 128, {fb, out});
  expect_trap(launched, "unreachable executed at invocation 512 (2 invocations trapped)");
}

TEST_P(Traps, TrappedInvocationsLeaveLoopsThatWouldNeverEnd) {
  std::vector<uint32_t> seven{7};
  runtime::Buffer target = buffer_with(seven), out = buffer(4 * 2);
  std::vector<uint32_t> addresses{*target.wasm_address(), 0xFFFFFFF0u};
  runtime::Buffer ab = buffer_with(addresses);
  Status launched = kernel("traps", "spin_until_seven").launch(2, 64, {ab, out});
  expect_trap(launched, "out of bounds memory access at invocation 1 (1 invocation trapped)");
  // The invocation that did not trap found its 7 at the first read.
  EXPECT_EQ(read<uint32_t>(out, 1)[0], 1u);
}

INSTANTIATE_TEST_SUITE_P(OptLevels, Traps, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
