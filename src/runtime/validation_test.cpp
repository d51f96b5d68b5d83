// Proves that validation, synchronization validation included, is really on
// when WASMGPU_VALIDATION=1: a deliberately missing barrier must be reported.
#include <gtest/gtest.h>

#include "runtime/device_state.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

TEST(Validation, ReportsAMissingBarrier) {
  InstanceOptions options;
  options.print_validation_messages = false;
  auto instance = Instance::create(options);
  ASSERT_TRUE(instance.ok()) << instance.error().message;
  if (!instance->validation_enabled()) GTEST_SKIP() << "WASMGPU_VALIDATION is not set";
  {
    auto device = Device::create(*instance);
    ASSERT_TRUE(device.ok()) << device.error().message;
    auto a = device->create_buffer(256);
    auto b = device->create_buffer(256);
    ASSERT_TRUE(a.ok() && b.ok());
    DeviceState& state = device->state();
    auto cmd = state.begin();
    ASSERT_TRUE(cmd.ok());
    // Two copies into the same range with no barrier between them.
    VkBufferCopy region{0, 0, 256};
    state.vk.vkCmdCopyBuffer(*cmd, a->handle(), b->handle(), 1, &region);
    state.vk.vkCmdCopyBuffer(*cmd, a->handle(), b->handle(), 1, &region);
    ASSERT_TRUE(state.submit_and_wait("a racy copy").ok());
  }
  auto messages = instance->validation_messages();
  ASSERT_FALSE(messages.empty());
  bool hazard = false;
  for (const std::string& message : messages)
    hazard |= message.find("SYNC-HAZARD-WRITE-AFTER-WRITE") != std::string::npos;
  EXPECT_TRUE(hazard) << messages[0];
  instance->clear_validation_messages();
  EXPECT_TRUE(instance->validation_messages().empty());
}

}  // namespace
}  // namespace wasmgpu::runtime
