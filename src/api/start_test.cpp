// Start functions and mutable globals (docs/memory-model.md, "The start
// function" and "Globals"): the start function runs once when the module is
// loaded, its writes stay for every later launch and call; a start function
// that traps or cannot run fails the load; launches of more than one
// invocation that may write a mutable global are refused, naming it. The
// modules are testdata/start*.wat. api.calls.cpu runs these on the cpu device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/test_support.h"
#include "wasmgpu/call.hpp"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace {

using testing::ApiTest;
using testing::expect_exception;
using testing::kernel_path;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int32_t counter_of(Module& module) {
  const std::vector<CallResult> result = module.call("counter", std::vector<std::vector<Value>>{{}});
  EXPECT_FALSE(result.at(0).trapped) << result.at(0).trap;
  EXPECT_EQ(result.at(0).values.size(), 1u);
  return result.at(0).values.empty() ? -1 : int32_t(result.at(0).values[0].bits);
}

TEST_F(ApiTest, StartFunctionRunsOnceAtLoadAndKernelsSeeWhatItWrote) {
  Module start = device->load_file(kernel_path("start"));
  // The start function stored 1000 at address 64 and set $base to 7:
  // read_state writes memory[64] + $base + i.
  constexpr uint32_t n = 100;
  Buffer<int32_t> out = device->buffer<int32_t>(n);
  out.fill(0);
  start.kernel("read_state")(n, out);
  const std::vector<int32_t> values = out.read();
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(values[i], 1000 + 7 + int32_t(i)) << "invocation " << i;
  // It ran exactly once: it adds 1 to $counter, which starts at 0.
  EXPECT_EQ(counter_of(start), 1);
  const std::vector<CallResult> plus =
      start.call("base_plus", std::vector<std::vector<Value>>{{Value::i32(5)}, {Value::i32(-7)}});
  EXPECT_EQ(plus.at(0).values, std::vector<Value>{Value::i32(12)});
  EXPECT_EQ(plus.at(1).values, std::vector<Value>{Value::i32(0)});
  // Another instance of the same module runs its own start function, once.
  Module second = device->load_file(kernel_path("start"));
  EXPECT_EQ(counter_of(second), 1);
  EXPECT_EQ(counter_of(start), 1);
}

TEST_F(ApiTest, StartFunctionWritesPersistThroughOneInvocationLaunchesAndCalls) {
  Module start = device->load_file(kernel_path("start"));
  // One invocation writes the instance's global: 1 (the start function) + 5.
  start.kernel("bump")(1, 5);
  EXPECT_EQ(counter_of(start), 6);
  const std::vector<CallResult> added = start.call("add_to_counter", std::vector<std::vector<Value>>{{Value::i32(10)}});
  EXPECT_EQ(added.at(0).values, std::vector<Value>{Value::i32(16)});
  Buffer<int32_t> out = device->buffer<int32_t>(1);
  out.fill(0);
  start.kernel("read_counter")(1, out);
  EXPECT_EQ(out.read(), std::vector<int32_t>{16});
}

TEST_F(ApiTest, MutableGlobalsRefuseLaunchesOfMoreThanOneWritingInvocation) {
  Module start = device->load_file(kernel_path("start"));
  Exception launch = expect_exception([&] { start.kernel("bump")(4, 5); });
  EXPECT_EQ(launch.kind(), ErrorKind::Unsupported) << launch.what();
  EXPECT_TRUE(contains(launch.what(), "kernel 'bump'")) << launch.what();
  EXPECT_TRUE(contains(launch.what(), "global 'counter' (global 1)")) << launch.what();
  EXPECT_TRUE(contains(launch.what(), "4 invocations")) << launch.what();
  // A grid of two workgroups of one invocation is two invocations too.
  Exception grid = expect_exception([&] { start.kernel("bump")(Launch::grid({2, 1, 1}, {1, 1, 1}), 5); });
  EXPECT_EQ(grid.kind(), ErrorKind::Unsupported) << grid.what();
  EXPECT_TRUE(contains(grid.what(), "global 'counter'")) << grid.what();
  // Two calls that write it in one launch are refused the same way.
  Exception calls = expect_exception(
      [&] { start.call("add_to_counter", std::vector<std::vector<Value>>{{Value::i32(1)}, {Value::i32(2)}}); });
  EXPECT_EQ(calls.kind(), ErrorKind::Unsupported) << calls.what();
  EXPECT_TRUE(contains(calls.what(), "global 'counter' (global 1)")) << calls.what();
  EXPECT_TRUE(contains(calls.what(), "add_to_counter")) << calls.what();
  // Nothing of the refused launches ran.
  EXPECT_EQ(counter_of(start), 1);
  // Kernels that only read globals run over many invocations.
  Buffer<int32_t> out = device->buffer<int32_t>(64);
  start.kernel("read_state")(64, out);
  EXPECT_EQ(out.read()[63], 1000 + 7 + 63);
}

TEST_F(ApiTest, StartFunctionThatTrapsFailsTheLoadWithTheTrap) {
  Exception trap = expect_exception([&] { device->load_file(kernel_path("start_traps")); });
  EXPECT_EQ(trap.kind(), ErrorKind::Trap) << trap.what();
  EXPECT_TRUE(contains(trap.what(), "the start function 'init' (function 0) trapped: integer divide by zero"))
      << trap.what();
}

TEST_F(ApiTest, StartFunctionThatCannotRunFailsTheLoadNamingIt) {
  Exception refused = expect_exception([&] { device->load_file(kernel_path("start_imports")); });
  EXPECT_NE(refused.kind(), ErrorKind::Trap) << refused.what();
  EXPECT_TRUE(contains(refused.what(), "the start function 'init' (function 1) cannot run")) << refused.what();
  EXPECT_TRUE(contains(refused.what(), "env.hook")) << refused.what();
}

// wasm-ld's __wasm_init_memory (--shared-memory): the start function copies
// the static data in, guarded by a flag; its waits run as a lone
// invocation's (frontend/start_function.h).
TEST_F(ApiTest, StartFunctionOfASharedMemoryCopiesTheStaticDataInAndItsWaitsReturn) {
  Module shared = device->load_file(kernel_path("start_shared_memory"));
  constexpr uint32_t n = 64;
  Buffer<int32_t> out = device->buffer<int32_t>(n);
  out.fill(0);
  shared.kernel("lookup")(n, out);
  const std::vector<int32_t> values = out.read();
  const int32_t statics[] = {10, 20, 30, 40};
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(values[i], statics[i & 3] + int32_t(i)) << "invocation " << i;
  Buffer<int32_t> state = device->buffer<int32_t>(5);
  state.fill(0);
  shared.kernel("state")(1, state);
  // The flag says "initialised"; the waits: not-equal, timed-out (finite
  // timeouts), timed-out, not-equal.
  EXPECT_EQ(state.read(), (std::vector<int32_t>{2, 1, 2, 2, 1}));
}

// The same from clang and wasm-ld: C's static data in a module linked with
// --shared-memory.
TEST_F(ApiTest, StartFunctionOfAModuleLinkedWithSharedMemoryRuns) {
  Module shared = device->load_file(kernel_path("static_data_shared"));
  constexpr uint32_t n = 256;
  Buffer<int32_t> out = device->buffer<int32_t>(n);
  out.fill(0);
  shared.kernel("lookup")(n, out);
  const std::vector<int32_t> values = out.read();
  const int32_t table[] = {3, 1, 4, 1, 5, 9, 2, 6};
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(values[i], table[i & 7] * 100 + int32_t(i)) << "invocation " << i;
}

TEST_F(ApiTest, StartFunctionWaitingForeverTrapsInsteadOfHanging) {
  Exception trap = expect_exception([&] { device->load_file(kernel_path("start_waits_forever")); });
  EXPECT_EQ(trap.kind(), ErrorKind::Trap) << trap.what();
  EXPECT_TRUE(contains(trap.what(), "the start function 'init' (function 0) trapped: unreachable executed"))
      << trap.what();
}

}  // namespace
}  // namespace wasmgpu
