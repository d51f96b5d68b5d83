#include "runtime/device_compile_options.h"

#include <gtest/gtest.h>
#include <vulkan/vulkan_core.h>

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

}  // namespace
}  // namespace wasmgpu::runtime
