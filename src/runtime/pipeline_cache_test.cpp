// The persisted Vulkan pipeline cache: the driver header is checked against
// the device, the file is written when a Device goes and loaded by the next,
// and a file for another device or a damaged one is ignored and replaced.
#include "runtime/pipeline_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/device.h"
#include "runtime/instance.h"
#include "runtime/kernel.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

namespace fs = std::filesystem;

DeviceInfo sample_device() {
  DeviceInfo info;
  info.vendor_id = 0x10de;
  info.device_id = 0x2335;
  info.driver_version = 0x91c0a000;
  for (uint8_t i = 0; i < 16; ++i) info.pipeline_cache_uuid[i] = uint8_t(0xa0 + i);
  return info;
}

// What a driver writes first: VkPipelineCacheHeaderVersionOne.
std::vector<uint8_t> header_for(const DeviceInfo& info, uint32_t header_size = 32, uint32_t extra = 8) {
  std::vector<uint8_t> data(32 + extra, 0xee);
  const uint32_t fields[4] = {header_size, VK_PIPELINE_CACHE_HEADER_VERSION_ONE, info.vendor_id, info.device_id};
  std::memcpy(data.data(), fields, 16);
  std::memcpy(data.data() + 16, info.pipeline_cache_uuid.data(), 16);
  return data;
}

TEST(PipelineCacheHeader, MatchesOnlyThisDeviceAndDriverBuild) {
  const DeviceInfo info = sample_device();
  EXPECT_TRUE(pipeline_cache_data_matches(header_for(info), info));
  EXPECT_TRUE(pipeline_cache_data_matches(header_for(info, 32, 0), info));
  DeviceInfo other = info;
  other.vendor_id = 0x1002;
  EXPECT_FALSE(pipeline_cache_data_matches(header_for(other), info));
  other = info;
  other.device_id = 0x2330;
  EXPECT_FALSE(pipeline_cache_data_matches(header_for(other), info));
  other = info;
  other.pipeline_cache_uuid[15] ^= 1;
  EXPECT_FALSE(pipeline_cache_data_matches(header_for(other), info));
  EXPECT_FALSE(pipeline_cache_data_matches(header_for(info, 16), info));   // header too small
  EXPECT_FALSE(pipeline_cache_data_matches(header_for(info, 100), info));  // longer than the data
  std::vector<uint8_t> version_two = header_for(info);
  version_two[4] = 2;
  EXPECT_FALSE(pipeline_cache_data_matches(version_two, info));
  const std::vector<uint8_t> whole = header_for(info);
  EXPECT_FALSE(pipeline_cache_data_matches(std::span<const uint8_t>(whole.data(), 31), info));
}

TEST(PipelineCacheHeader, FileNamesTheDeviceAndDriverBuild) {
  const DeviceInfo info = sample_device();
  EXPECT_EQ(pipeline_cache_file_name(info), "10de-2335-91c0a000-a0a1a2a3a4a5a6a7a8a9aaabacadaeaf.bin");
  DeviceInfo newer = info;
  newer.driver_version += 1;
  EXPECT_NE(pipeline_cache_file_name(newer), pipeline_cache_file_name(info));
  EXPECT_NE(pipeline_cache_key(newer), pipeline_cache_key(info));
}

class PipelineCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("wasmgpu-pipeline-cache-" + std::to_string(getpid()));
    fs::remove_all(dir);
    auto created = Instance::create();
    ASSERT_TRUE(created.ok()) << created.error().to_string();
    instance.emplace(std::move(created).value());
  }
  void TearDown() override {
    if (instance) {
      EXPECT_EQ(instance->validation_messages(), std::vector<std::string>{});
    }
    instance.reset();
    fs::remove_all(dir);
  }

  DeviceOptions options() const {
    DeviceOptions o;
    o.cache.directory = dir.string();
    return o;
  }

  // Creates a pipeline (launching a kernel that writes index * 3) and checks
  // what it wrote.
  static void launch_one(Device& device, uint32_t workgroup_size = 32) {
    auto kernel = Kernel::create(device, testing::glsl_kernel("triple", R"(
void kernel(uint index) { store32(arg32(0) + 4 * index, index * 3u, index); }
)",
                                                              {wasm::ValType::I32}));
    ASSERT_TRUE(kernel.ok()) << kernel.error().message;
    auto out = device.create_buffer(4 * 64);
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE(kernel->launch(64, workgroup_size, {*out}).ok());
    auto values = out->read_as<uint32_t>(64);
    ASSERT_TRUE(values.ok());
    for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ((*values)[i], 3 * i);
  }

  fs::path file_of(const Device& device) const { return dir / "pipelines" / pipeline_cache_file_name(device.info()); }

  std::vector<uint8_t> driver_data(const Device& device) const {
    std::ifstream in(file_of(device), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return open_cache_entry(CacheEntryKind::PipelineCache, pipeline_cache_key(device.info()), bytes)
        .value_or(std::vector<uint8_t>{});
  }

  fs::path dir;
  std::optional<Instance> instance;
};

TEST_F(PipelineCacheTest, SavedWhenTheDeviceGoesAndLoadedByTheNext) {
  fs::path file;
  {
    auto device = Device::create(*instance, options());
    ASSERT_TRUE(device.ok());
    EXPECT_EQ(device->cache_stats().pipeline_cache_loaded_bytes, 0u);
    launch_one(*device);
    EXPECT_EQ(device->cache_stats().pipelines_created, 1u);
    file = file_of(*device);
    EXPECT_FALSE(fs::exists(file));  // not before the Device goes (or a minute passes)
  }
  ASSERT_TRUE(fs::exists(file));
  auto device = Device::create(*instance, options());
  ASSERT_TRUE(device.ok());
  const std::vector<uint8_t> data = driver_data(*device);
  ASSERT_TRUE(pipeline_cache_data_matches(data, device->info()));
  EXPECT_EQ(device->cache_stats().pipeline_cache_loaded_bytes, data.size());
  EXPECT_FALSE(device->cache_stats().pipeline_cache_rejected);
  launch_one(*device);
}

// Two Devices alive at once each save; the second merges the first's file
// (vkMergePipelineCaches, under the validation layer) before replacing it.
TEST_F(PipelineCacheTest, ConcurrentDevicesMergeTheirSaves) {
  auto first = Device::create(*instance, options());
  auto second = Device::create(*instance, options());
  ASSERT_TRUE(first.ok() && second.ok());
  launch_one(*first, 32);
  launch_one(*second, 16);
  first->save_caches();
  EXPECT_EQ(first->cache_stats().pipeline_cache_saves, 1u);
  second->save_caches();
  EXPECT_EQ(second->cache_stats().pipeline_cache_saves, 1u);
  EXPECT_TRUE(pipeline_cache_data_matches(driver_data(*second), second->info()));
  // Nothing new since: no second write.
  second->save_caches();
  EXPECT_EQ(second->cache_stats().pipeline_cache_saves, 1u);
}

TEST_F(PipelineCacheTest, FileForAnotherDriverBuildIsIgnoredAndReplaced) {
  DeviceInfo info;
  {
    auto device = Device::create(*instance, options());
    ASSERT_TRUE(device.ok());
    info = device->info();
  }
  // A well-formed entry whose driver header names another pipelineCacheUUID,
  // as after a driver update that kept the version number.
  DeviceInfo other = info;
  other.pipeline_cache_uuid[0] ^= 0xff;
  ASSERT_TRUE(write_file_atomically(
                  dir / "pipelines" / pipeline_cache_file_name(info),
                  seal_cache_entry(CacheEntryKind::PipelineCache, pipeline_cache_key(info), header_for(other)))
                  .ok());
  {
    auto device = Device::create(*instance, options());
    ASSERT_TRUE(device.ok());
    EXPECT_TRUE(device->cache_stats().pipeline_cache_rejected);
    EXPECT_EQ(device->cache_stats().pipeline_cache_loaded_bytes, 0u);
    launch_one(*device);
  }
  auto device = Device::create(*instance, options());
  ASSERT_TRUE(device.ok());
  EXPECT_FALSE(device->cache_stats().pipeline_cache_rejected);
  EXPECT_TRUE(pipeline_cache_data_matches(driver_data(*device), info));
}

}  // namespace
}  // namespace wasmgpu::runtime
