#include "runtime/device_compile_options.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <vulkan/vulkan_core.h>

#include <filesystem>
#include <optional>

namespace wasmgpu::runtime {
namespace {

DeviceInfo device(uint32_t driver_id, bool subgroup_vote) {
  DeviceInfo info;
  info.driver_id = driver_id;
  info.features.subgroup_vote = subgroup_vote;
  return info;
}

TEST(DeviceCompileOptions, KeepWhatTheDeviceRunsWell) {
  const spirv::CompileOptions o = device_compile_options(device(VK_DRIVER_ID_MESA_LLVMPIPE, true), {});
  EXPECT_TRUE(o.subgroup_vote);
  EXPECT_TRUE(o.loop_exit_breaks);
  EXPECT_EQ(o.float_mode, spirv::FloatMode::Exact);
}

TEST(DeviceCompileOptions, NoVotesWithoutSubgroupVotes) {
  EXPECT_FALSE(device_compile_options(device(VK_DRIVER_ID_MESA_LLVMPIPE, false), {}).subgroup_vote);
}

TEST(DeviceCompileOptions, NvidiaLeavesLoopsThroughPending) {
  const spirv::CompileOptions o = device_compile_options(device(VK_DRIVER_ID_NVIDIA_PROPRIETARY, true), {});
  EXPECT_FALSE(o.loop_exit_breaks);
  EXPECT_TRUE(o.subgroup_vote);
}

TEST(DeviceCompileOptions, WhatTheCallerTurnedOffStaysOff) {
  spirv::CompileOptions requested;
  requested.loop_exit_breaks = false;
  requested.subgroup_vote = false;
  requested.float_mode = spirv::FloatMode::Fast;
  const spirv::CompileOptions o = device_compile_options(device(VK_DRIVER_ID_MESA_LLVMPIPE, true), requested);
  EXPECT_FALSE(o.loop_exit_breaks);
  EXPECT_FALSE(o.subgroup_vote);
  EXPECT_EQ(o.float_mode, spirv::FloatMode::Fast);
}

TEST(DeviceCompileOptions, F64SubnormalsAreNativeOnlyWherePromisedOrProbedKept) {
  const DeviceInfo llvmpipe = device(VK_DRIVER_ID_MESA_LLVMPIPE, true);
  EXPECT_FALSE(device_compile_options(llvmpipe, {}).f64_subnormals_native)
      << "no probe and no shaderDenormPreserveFloat64: the checked path";
  DeviceInfo preserving = llvmpipe;
  preserving.features.denorm_preserve_f64 = true;
  EXPECT_TRUE(device_compile_options(preserving, {}).f64_subnormals_native) << "the device promises them";
  ProbeResults kept;
  kept.properties = {{std::string(kProbeF64Subnormals), ProbeRaw::Right, false}};
  EXPECT_TRUE(device_compile_options(llvmpipe, {}, &kept).f64_subnormals_native);
  ProbeResults absent;
  absent.properties = {{std::string(kProbeF64Subnormals), ProbeRaw::Absent, false}};
  EXPECT_FALSE(device_compile_options(llvmpipe, {}, &absent).f64_subnormals_native);
  ProbeResults other;
  other.properties = {{std::string(kProbeWorkgroupBarrier), ProbeRaw::Right, false}};
  EXPECT_FALSE(device_compile_options(llvmpipe, {}, &other).f64_subnormals_native) << "not probed";
  spirv::CompileOptions asked_off;
  asked_off.f64_subnormals_native = false;
  EXPECT_FALSE(device_compile_options(preserving, asked_off).f64_subnormals_native) << "the caller's off stays off";
  // The routing goes through the cache entry as the runtime reads it.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wasmgpu-compile-options-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  DiskCache cache(dir, kDefaultCacheMaxBytes);
  ProbeResults flushed;
  flushed.properties = {{std::string(kProbeF64Subnormals), ProbeRaw::Wrong, false}};
  ASSERT_TRUE(write_cached_probe(cache, llvmpipe, "cpu flags", flushed).ok());
  std::optional<ProbeResults> cached = read_cached_probe(cache, llvmpipe, "cpu flags");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(cached.has_value());
  const spirv::CompileOptions o = device_compile_options(llvmpipe, {}, &*cached);
  EXPECT_FALSE(o.f64_subnormals_native);
  EXPECT_TRUE(o.subgroup_vote);
  EXPECT_TRUE(o.loop_exit_breaks);
}

}  // namespace
}  // namespace wasmgpu::runtime
