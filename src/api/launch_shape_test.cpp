// Launch shapes on the test device: the autotuner's launches are the user's
// launches, each computing its results, and it converges on one size (which
// size wins is the device's business: nothing here is timed).
#include <gtest/gtest.h>

#include <cstdlib>

#include "api/test_support.h"
#include "wasmgpu/wasmgpu.hpp"

namespace wasmgpu {
namespace {

using ApiLaunchShape = testing::ValidatedTest;

std::string tunable_path() { return std::string(WASMGPU_API_KERNELS_DIR) + "/tunable.wasm"; }

TEST_F(ApiLaunchShape, TuningLaunchesComputeTheirResultsAndConverge) {
  const char* previous = std::getenv("WASMGPU_AUTOTUNE");
  const std::optional<std::string> saved = previous ? std::optional<std::string>(previous) : std::nullopt;
  setenv("WASMGPU_AUTOTUNE", "1", 1);
  {
    DeviceOptions options;
    options.cache = false;  // a cold autotuner, and nothing left behind
    Device device = Device::open(options);
    Module module = device.load_file(tunable_path());
    Kernel add_one = module.kernel("add_one");
    const uint32_t n = 5000;  // not a multiple of any candidate
    std::vector<float> input(n);
    for (uint32_t i = 0; i < n; ++i) input[i] = float(i) * 0.5f;
    Buffer<float> src = device.upload(input);
    const LaunchChoice first = add_one.launch_shape(n);
    ASSERT_TRUE(first.tunable) << first.reason;
    EXPECT_EQ(first.source, LaunchChoice::Source::Tuning);
    EXPECT_LE(first.workgroup_size[0], device.info().max_workgroup_invocations);
    std::vector<uint32_t> tried;
    for (int launch = 0; launch < 8 && add_one.launch_shape(n).source == LaunchChoice::Source::Tuning; ++launch) {
      tried.push_back(add_one.launch_shape(n).workgroup_size[0]);
      Buffer<float> dst = device.buffer<float>(n);
      add_one(n, src, dst);
      const std::vector<float> out = dst.read();
      for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], input[i] + 1.0f) << "size " << tried.back() << ", " << i;
    }
    EXPECT_GE(tried.size(), 1u);
    EXPECT_EQ(tried.front(), first.workgroup_size[0]);  // the heuristic's size first
    const LaunchChoice tuned = add_one.launch_shape(n);
    EXPECT_EQ(tuned.source, LaunchChoice::Source::Tuned) << tuned.reason;
    EXPECT_NE(std::find(tried.begin(), tried.end(), tuned.workgroup_size[0]), tried.end());
    Buffer<float> dst = device.buffer<float>(n);
    add_one(n, src, dst);
    EXPECT_EQ(dst.read()[n - 1], input[n - 1] + 1.0f);
  }
  if (saved)
    setenv("WASMGPU_AUTOTUNE", saved->c_str(), 1);
  else
    unsetenv("WASMGPU_AUTOTUNE");
}

}  // namespace
}  // namespace wasmgpu
