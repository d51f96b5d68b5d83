#include "runtime/device_info.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/device.h"
#include "runtime/instance.h"
#include "runtime/test_support.h"
#include "support/environment.h"
#include "support/scoped_variable.h"

namespace wasmgpu::runtime {
namespace {

DeviceOptions with_index(uint32_t index) {
  DeviceOptions options;
  options.index = index;
  return options;
}

DeviceInfo fake(uint32_t index, std::string name, DeviceType type, bool usable = true) {
  DeviceInfo info;
  info.index = index;
  info.name = std::move(name);
  info.type = type;
  info.api_version = VK_API_VERSION_1_3;
  if (!usable) info.unusable_reason = "missing required features: bufferDeviceAddress";
  return info;
}

const std::vector<DeviceInfo> kDevices = {
    fake(0, "llvmpipe (LLVM 15.0.6, 256 bits)", DeviceType::Cpu),
    fake(1, "Intel(R) UHD Graphics 770", DeviceType::IntegratedGpu),
    fake(2, "NVIDIA H200", DeviceType::DiscreteGpu, /*usable=*/false),
    fake(3, "NVIDIA GeForce RTX 4090", DeviceType::DiscreteGpu),
};

TEST(ChooseDevice, PrefersDiscreteThenIntegratedSkippingUnusable) {
  EXPECT_EQ(choose_device(kDevices, std::nullopt).value(), 3u);
  std::vector<DeviceInfo> no_discrete(kDevices.begin(), kDevices.begin() + 3);
  EXPECT_EQ(choose_device(no_discrete, std::nullopt).value(), 1u);
  std::vector<DeviceInfo> cpu_only(kDevices.begin(), kDevices.begin() + 1);
  EXPECT_EQ(choose_device(cpu_only, std::nullopt).value(), 0u);
}

TEST(ChooseDevice, ByIndexOrCaseInsensitiveName) {
  EXPECT_EQ(choose_device(kDevices, "1").value(), 1u);
  EXPECT_EQ(choose_device(kDevices, "LLVMPIPE").value(), 0u);
  EXPECT_EQ(choose_device(kDevices, "rtx").value(), 3u);
  EXPECT_EQ(choose_device(kDevices, "nvidia geforce").value(), 3u);
}

TEST(ChooseDevice, ClearErrors) {
  auto none = choose_device(kDevices, "foo");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message.rfind("no Vulkan device matches WASMGPU_DEVICE=foo; devices: 0 "
                                       "llvmpipe (LLVM 15.0.6, 256 bits) (CPU",
                                       0),
            0u)
      << none.error().message;
  auto out_of_range = choose_device(kDevices, "7");
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().message.find("WASMGPU_DEVICE=7"), std::string::npos);
  auto unusable = choose_device(kDevices, "H200");
  ASSERT_FALSE(unusable.ok());
  EXPECT_NE(unusable.error().message.find("cannot run wasmgpu kernels: missing required "
                                          "features: bufferDeviceAddress"),
            std::string::npos)
      << unusable.error().message;
  auto empty = choose_device({}, std::nullopt);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("no Vulkan devices"), std::string::npos);
  std::vector<DeviceInfo> all_unusable = {fake(0, "old", DeviceType::DiscreteGpu, false)};
  auto nothing = choose_device(all_unusable, std::nullopt);
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.error().message.find("[unusable: missing"), std::string::npos);
}

TEST(CheckUsable, NamesEveryMissingRequiredFeature) {
  DeviceFeatures features;
  Status old = check_usable(VK_API_VERSION_1_1, features);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(old.error().message, "Vulkan 1.1.0 (wasmgpu needs Vulkan 1.2)");
  Status missing = check_usable(VK_API_VERSION_1_2, features);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(missing.error().message,
            "missing required features: bufferDeviceAddress, shaderInt64, shaderInt8, "
            "storageBuffer8BitAccess");
  features = {.shader_int64 = true,
              .shader_float64 = false,
              .shader_int8 = true,
              .storage_buffer_8bit_access = true,
              .buffer_device_address = true};
  EXPECT_TRUE(check_usable(VK_API_VERSION_1_2, features).ok());  // f64 is per kernel
}

using ScopedEnv = environment::ScopedVariable;

TEST(Instance, EnumeratesDevicesWithLimitsAndFeatures) {
  auto instance = Instance::create();
  ASSERT_TRUE(instance.ok()) << instance.error().message;
  ASSERT_FALSE(instance->devices().empty());
  for (const DeviceInfo& info : instance->devices()) {
    SCOPED_TRACE(info.summary());
    EXPECT_FALSE(info.name.empty());
    EXPECT_GE(info.api_version, VK_API_VERSION_1_0);
    if (!info.usable()) continue;
    EXPECT_GT(info.limits.max_workgroup_count[0], 0u);
    EXPECT_GT(info.limits.max_workgroup_size[0], 0u);
    EXPECT_GT(info.limits.max_workgroup_invocations, 0u);
    EXPECT_GT(info.limits.subgroup_size, 0u);
    EXPECT_GE(info.limits.max_push_constants_size, 128u);
    EXPECT_GT(info.limits.max_memory_allocation_size, 0u);
    EXPECT_GT(info.limits.max_storage_buffer_range, 0u);
    EXPECT_GT(info.device_local_memory_bytes, 0u);
    EXPECT_TRUE(info.features.buffer_device_address);
    EXPECT_TRUE(info.features.shader_int64);
  }
  const std::optional<std::string> validation = environment::get("WASMGPU_VALIDATION");
  EXPECT_EQ(instance->validation_enabled(), validation && !validation->empty() && *validation != "0");
  EXPECT_TRUE(instance->validation_messages().empty());
}

TEST(Device, ChosenByIndexPreferenceAndEnvironment) {
  auto instance = Instance::create();
  ASSERT_TRUE(instance.ok()) << instance.error().message;
  const DeviceInfo& first = instance->devices()[0];
  {
    ScopedEnv env("WASMGPU_DEVICE", nullptr);
    auto by_preference = Device::create(*instance);
    ASSERT_TRUE(by_preference.ok()) << by_preference.error().message;
    EXPECT_EQ(by_preference->info().index, choose_device(instance->devices(), std::nullopt).value());
  }
  if (first.usable()) {
    auto by_index = Device::create(*instance, with_index(0));
    ASSERT_TRUE(by_index.ok()) << by_index.error().message;
    EXPECT_EQ(by_index->info().name, first.name);
    // The environment names the device by a substring in another case.
    std::string upper;
    for (char c : first.name.substr(0, 4)) upper += char(std::toupper(c));
    ScopedEnv env("WASMGPU_DEVICE", upper.c_str());
    auto by_env = Device::create(*instance);
    ASSERT_TRUE(by_env.ok()) << by_env.error().message;
    EXPECT_EQ(by_env->info().index, 0u);
  }
  {
    ScopedEnv env("WASMGPU_DEVICE", "foo");
    auto none = Device::create(*instance);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().message.rfind("no Vulkan device matches WASMGPU_DEVICE=foo; devices: 0 " + first.name, 0),
              0u)
        << none.error().message;
    // An explicit index wins over the environment.
    if (first.usable()) {
      EXPECT_TRUE(Device::create(*instance, with_index(0)).ok());
    }
  }
  auto bad_index = Device::create(*instance, with_index(99));
  ASSERT_FALSE(bad_index.ok());
  EXPECT_NE(bad_index.error().message.find("no Vulkan device with index 99"), std::string::npos);
  EXPECT_TRUE(instance->validation_messages().empty());
}

TEST(Instance, NoDriverIsAnErrorNotACrash) {
  ScopedEnv files("VK_DRIVER_FILES", "/nonexistent/wasmgpu-no-icd.json");
  ScopedEnv filenames("VK_ICD_FILENAMES", "/nonexistent/wasmgpu-no-icd.json");
  InstanceOptions options;
  options.print_validation_messages = false;
  auto instance = Instance::create(options);
  if (!instance.ok()) {
    EXPECT_NE(instance.error().message.find("vkCreateInstance failed: VK_ERROR_"), std::string::npos)
        << instance.error().message;
    return;
  }
  EXPECT_TRUE(instance->devices().empty());
  auto device = Device::create(*instance);
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().message.find("no Vulkan devices found"), std::string::npos) << device.error().message;
}

TEST(Instance, MissingValidationLayerIsAnError) {
  ScopedEnv layers("VK_LAYER_PATH", "/nonexistent/wasmgpu-no-layers");
  ScopedEnv add_layers("VK_ADD_LAYER_PATH", nullptr);
  InstanceOptions options;
  options.validation = true;
  auto instance = Instance::create(options);
  ASSERT_FALSE(instance.ok());
  EXPECT_NE(instance.error().message.find("VK_LAYER_KHRONOS_validation is not installed"), std::string::npos)
      << instance.error().message;
}

}  // namespace
}  // namespace wasmgpu::runtime
