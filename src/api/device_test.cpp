// Devices through the public API: enumeration, opening by index, name and
// default, and the process-wide instance.
#include "wasmgpu/device.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "api/test_support.h"
#include "support/environment.h"

namespace wasmgpu {
namespace {

using ApiDevice = testing::ValidatedTest;
using testing::expect_exception;

TEST_F(ApiDevice, EnumeratesAndOpensByIndexNameAndDefault) {
  const std::vector<DeviceInfo> all = devices();
  ASSERT_FALSE(all.empty());
  uint32_t usable = all.size();
  for (const DeviceInfo& info : all) {
    EXPECT_EQ(&info - all.data(), ptrdiff_t(info.index));
    EXPECT_FALSE(info.name.empty());
    if (info.usable() && usable == all.size()) usable = info.index;
  }
  ASSERT_LT(usable, all.size()) << "no usable device";
  {
    Device by_index = Device::open(usable);
    EXPECT_EQ(by_index.info().name, all[usable].name);
    EXPECT_EQ(by_index.info().index, usable);
    DeviceOptions options;
    options.name = all[usable].name.substr(0, 4);  // a case-insensitive substring
    for (char& c : *options.name) c = char(std::toupper(static_cast<unsigned char>(c)));
    Device by_name = Device::open(options);
    EXPECT_NE(by_name.info().name.find(all[usable].name.substr(0, 4)), std::string::npos);
    Device chosen = Device::open();
    EXPECT_TRUE(chosen.info().usable());
    EXPECT_GT(chosen.info().max_workgroup_invocations, 0u);
    // default_device() names the device Device::open() opened.
    const DefaultDevice default_choice = default_device();
    ASSERT_TRUE(default_choice.index.has_value()) << default_choice.reason;
    EXPECT_EQ(*default_choice.index, chosen.info().index);
    EXPECT_GT(chosen.info().max_workgroup_count_x, 0u);
    EXPECT_GT(chosen.info().max_allocation_bytes, 0u);
    EXPECT_GT(chosen.info().device_local_memory_bytes, 0u);
  }
}

TEST_F(ApiDevice, CacheStatsCountCompilesAndPipelinesWithTheCacheOff) {
  DeviceOptions options;
  options.cache = false;
  Device device = Device::open(options);
  const CacheStats before = device.cache_stats();
  EXPECT_TRUE(before.directory.empty());
  EXPECT_FALSE(before.disabled_reason.empty());
  EXPECT_EQ(before.spirv_compiles, 0u);
  EXPECT_EQ(before.pipelines_created, 0u);
  Module module = device.load_file(testing::kernel_path("kernels"));
  Buffer<int> counts = device.buffer<int>(4);
  module.kernel("read_counters")(4, counts);
  const CacheStats after = device.cache_stats();
  EXPECT_GE(after.spirv_compiles, 1u);
  EXPECT_GT(after.spirv_compile_seconds, 0.0);
  EXPECT_EQ(after.spirv_cache_hits, 0u);
  EXPECT_GE(after.pipelines_created, 1u);
  EXPECT_EQ(after.pipeline_cache_loaded_bytes, 0u);
  device.save_caches();  // nothing to write with the cache off
  EXPECT_EQ(device.cache_stats().cache_write_failures, 0u);
}

// The inlining budget is a compile option: a module loaded with another
// budget is compiled again (the cache key holds it), the same budget finds
// the cached SPIR-V, and the results do not depend on it.
TEST_F(ApiDevice, InlineBudgetReachesTheCompileAndItsCacheKey) {
  testing::ScratchCache scratch;
  ASSERT_FALSE(scratch.dir.empty());
  Device device = scratch.open();
  auto run = [&](std::optional<uint64_t> budget) {
    ModuleOptions options;
    options.inline_budget = budget;
    Module module = device.load_file(testing::kernel_path("kernels"), options);
    Buffer<int> in = device.upload(std::vector<int>{1, 2, 3, 4});
    Buffer<int> out = device.buffer<int>(4);
    module.kernel("stack_sum")(4, in, out);
    return out.read();
  };
  const std::vector<int> reference = run(std::nullopt);
  EXPECT_EQ(reference, (std::vector<int>{36, 72, 108, 144}));
  const uint64_t compiles = device.cache_stats().spirv_compiles;
  EXPECT_EQ(run(1), reference);
  const uint64_t after_budget = device.cache_stats().spirv_compiles;
  EXPECT_GT(after_budget, compiles);
  const uint64_t hits = device.cache_stats().spirv_cache_hits;
  EXPECT_EQ(run(1), reference);
  EXPECT_EQ(device.cache_stats().spirv_compiles, after_budget);
  EXPECT_GT(device.cache_stats().spirv_cache_hits, hits);
}

TEST_F(ApiDevice, UnknownDevicesAreNotFound) {
  Exception by_index = expect_exception([] { Device::open(4000); });
  EXPECT_EQ(by_index.kind(), ErrorKind::NotFound);
  EXPECT_NE(std::string(by_index.what()).find("no Vulkan device with index 4000; devices: 0 "), std::string::npos)
      << by_index.what();
  DeviceOptions options;
  options.name = "no such device anywhere";
  Exception by_name = expect_exception([&] { Device::open(options); });
  EXPECT_EQ(by_name.kind(), ErrorKind::NotFound);
  EXPECT_NE(std::string(by_name.what()).find("no such device anywhere"), std::string::npos) << by_name.what();
}

// One instance for the process: opening and closing many devices never
// creates another (drivers limit instance create/destroy cycles).
TEST_F(ApiDevice, ManyDevicesShareTheProcessInstance) {
  for (int i = 0; i < 40; ++i) {
    Device device = Device::open();
    Buffer<int> buffer = device.buffer<int>(4);
    EXPECT_EQ(buffer.read(), std::vector<int>(4, 0));
  }
}

TEST_F(ApiDevice, ValidationFollowsTheEnvironment) {
  const std::optional<std::string> env = environment::get("WASMGPU_VALIDATION");
  const bool expected = env && !env->empty() && *env != "0";
  EXPECT_EQ(validation_enabled(), expected);
}

TEST_F(ApiDevice, MovedFromDeviceIsAnError) {
  Device device = Device::open();
  Device other = std::move(device);
  Exception moved = expect_exception([&] { (void)device.info(); });
  EXPECT_EQ(moved.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(moved.what(), "use of a moved-from Device");
  Exception buffer = expect_exception([&] { device.buffer<float>(4); });
  EXPECT_EQ(buffer.kind(), ErrorKind::UseAfterMove);
  EXPECT_TRUE(other.info().usable());
}

TEST_F(ApiDevice, ErrorKindsHaveNames) {
  EXPECT_STREQ(to_string(ErrorKind::BufferTooSmall), "buffer too small");
  EXPECT_STREQ(to_string(ErrorKind::WrongDevice), "wrong device");
  EXPECT_STREQ(to_string(ScalarType::U64), "u64");
  EXPECT_STREQ(to_string(ParamKind::UniformBuffer), "uniform buffer");
}

}  // namespace
}  // namespace wasmgpu
