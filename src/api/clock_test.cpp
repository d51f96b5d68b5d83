// WASI's clock_time_get in kernels (testdata/clock.c): every invocation of
// a launch reads the host's CLOCK_REALTIME and CLOCK_MONOTONIC as the
// runtime sampled them when it recorded the launch, so the values lie
// between the host's clocks read just before and just after the launch,
// and are the same for all invocations; a clock the device does not have
// gives WASI's EINVAL (28). Runs on the Vulkan device and, as
// api.clock.cpu, on the cpu device.
#include <gtest/gtest.h>

#include <ctime>
#include <vector>

#include "api/test_support.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace {

using testing::ApiTest;
using testing::kernel_path;

uint64_t now_ns(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return uint64_t(t.tv_sec) * 1'000'000'000u + uint64_t(t.tv_nsec);
}

TEST_F(ApiTest, ClocksAreTheHostsWhenTheLaunchWasRecorded) {
  Module module = device->load_file(kernel_path("clock"));
  constexpr uint32_t kInvocations = 100;
  Buffer<uint64_t> out = device->buffer<uint64_t>(3 * kInvocations);
  Buffer<int32_t> status = device->buffer<int32_t>(2 * kInvocations);
  out.fill(0);
  status.fill(-1);
  const uint64_t realtime_before = now_ns(CLOCK_REALTIME), monotonic_before = now_ns(CLOCK_MONOTONIC);
  module.kernel("read_clocks")(kInvocations, out, status);
  const uint64_t realtime_after = now_ns(CLOCK_REALTIME), monotonic_after = now_ns(CLOCK_MONOTONIC);
  const std::vector<uint64_t> clocks = out.read();
  const std::vector<int32_t> results = status.read();
  const uint64_t realtime = clocks[0], monotonic = clocks[1];
  EXPECT_GE(realtime, realtime_before);
  EXPECT_LE(realtime, realtime_after);
  EXPECT_GE(monotonic, monotonic_before);
  EXPECT_LE(monotonic, monotonic_after);
  for (uint32_t i = 0; i < kInvocations; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(clocks[3 * i], realtime);
    EXPECT_EQ(clocks[3 * i + 1], monotonic);
    EXPECT_EQ(clocks[3 * i + 2], realtime / 1'000'000'000u);  // time(NULL): whole seconds
    EXPECT_EQ(results[2 * i], 0);                             // clock_gettime succeeded
    EXPECT_EQ(results[2 * i + 1], 28);                        // EINVAL: no CPU-time clock
  }
}

TEST_F(ApiTest, ClocksOfEachLaunchAreItsOwn) {
  Module module = device->load_file(kernel_path("clock"));
  Buffer<uint64_t> out = device->buffer<uint64_t>(3);
  Buffer<int32_t> status = device->buffer<int32_t>(2);
  module.kernel("read_clocks")(1, out, status);
  const uint64_t first = out.read()[1];
  const uint64_t between = now_ns(CLOCK_MONOTONIC);
  module.kernel("read_clocks")(1, out, status);
  const uint64_t second = out.read()[1];
  EXPECT_LE(first, between);
  EXPECT_GE(second, between);
}

}  // namespace
}  // namespace wasmgpu
