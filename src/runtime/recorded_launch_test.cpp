// Kernel::record: launches recorded into the caller's own command buffer,
// submitted and waited for by the caller, under synchronization validation.
#include "runtime/recorded_launch.h"

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/device_state.h"
#include "runtime/kernel.h"
#include "runtime/launch_arena.h"
#include "runtime/module.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::glsl_kernel;
using testing::VulkanTest;
using wasm::ValType;

// What a caller outside the runtime owns: a pool, a command buffer, a fence.
class OwnCommandBuffer {
 public:
  explicit OwnCommandBuffer(DeviceState& device) : device_(device) {
    VkCommandPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pool_info.queueFamilyIndex = device.queue_family;
    EXPECT_EQ(device.vk.vkCreateCommandPool(device.device, &pool_info, nullptr, &pool_), VK_SUCCESS);
    VkCommandBufferAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    EXPECT_EQ(device.vk.vkAllocateCommandBuffers(device.device, &alloc, &cmd_), VK_SUCCESS);
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    EXPECT_EQ(device.vk.vkCreateFence(device.device, &fence_info, nullptr, &fence_), VK_SUCCESS);
  }
  ~OwnCommandBuffer() {
    device_.vk.vkDestroyFence(device_.device, fence_, nullptr);
    device_.vk.vkDestroyCommandPool(device_.device, pool_, nullptr);
  }
  VkCommandBuffer begin() {
    VkCommandBufferBeginInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    EXPECT_EQ(device_.vk.vkBeginCommandBuffer(cmd_, &info), VK_SUCCESS);
    return cmd_;
  }
  // Ends (when recording), submits, waits.
  void submit_and_wait(bool end = true) {
    if (end) {
      ASSERT_EQ(device_.vk.vkEndCommandBuffer(cmd_), VK_SUCCESS);
    }
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd_;
    ASSERT_EQ(device_.vk.vkQueueSubmit(device_.queue, 1, &submit, fence_), VK_SUCCESS);
    ASSERT_EQ(device_.vk.vkWaitForFences(device_.device, 1, &fence_, VK_TRUE, ~0ull), VK_SUCCESS);
    ASSERT_EQ(device_.vk.vkResetFences(device_.device, 1, &fence_), VK_SUCCESS);
  }

 private:
  DeviceState& device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

// out[i] = in[i] * mul + add, through a value kept in the stack slot, so that
// the kernel uses the device's per-invocation stacks.
const char* kStackAxpy = R"(
void kernel(uint index) {
  uint64_t slot = stack_slot();
  Words(slot).w[0] = load32(arg32(1) + 4 * index, index) * arg32(2);
  store32(arg32(0) + 4 * index, Words(slot).w[0] + arg32(3), index);
}
)";

TEST_F(VulkanTest, RecordedLaunchesRunInTheCallersCommandBuffer) {
  auto kernel = Kernel::create(
      *device, glsl_kernel("axpy", kStackAxpy, {ValType::I32, ValType::I32, ValType::I32, ValType::I32}, 0, 16));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const uint32_t n = 300;
  auto a = device->create_buffer(4 * n);
  auto b = device->create_buffer(4 * n);
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<uint32_t> input(n);
  for (uint32_t i = 0; i < n; ++i) input[i] = i * 3 + 1;
  ASSERT_TRUE(a->write(input).ok());

  auto arena = LaunchArena::create(*device);
  ASSERT_TRUE(arena.ok());
  OwnCommandBuffer own(device->state());
  VkCommandBuffer cmd = own.begin();
  // b = a * 2 + 1, then a = b * 3 + 5: the second reads what the first wrote,
  // and both use the stacks; the caller orders the buffers, record() the stacks.
  RecordOptions options;
  options.host_barrier_after = false;
  auto first = kernel->record(cmd, LaunchShape::linear(n, 32), {*b, *a, 2, 1}, *arena, options);
  ASSERT_TRUE(first.ok()) << first.error().message;
  memory_barrier(device->state(), cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  options.barrier_before = false;
  auto second = kernel->record(cmd, LaunchShape::linear(n, 64), {*a, *b, 3, 5}, *arena, options);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE(first->uses_stacks());
  EXPECT_EQ(first->dispatches(), 1u);
  EXPECT_EQ(first->invocations(), n);
  record_host_read_barrier(device->state(), cmd);
  own.submit_and_wait();
  EXPECT_TRUE(read_trap(*first).ok());
  EXPECT_TRUE(read_trap(*second).ok());
  auto out = a->read_as<uint32_t>(n);
  ASSERT_TRUE(out.ok());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ((*out)[i], (input[i] * 2 + 1) * 3 + 5) << i;

  // The same command buffer again, with new scalars written into the arena.
  ASSERT_TRUE(a->write(input).ok());
  ASSERT_TRUE(first->set_arg(2, 10).ok());
  ASSERT_TRUE(second->set_arg(3, 0).ok());
  first->reset_trap();
  second->reset_trap();
  own.submit_and_wait(/*end=*/false);
  out = a->read_as<uint32_t>(n);
  ASSERT_TRUE(out.ok());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ((*out)[i], (input[i] * 10 + 1) * 3) << i;

  Status wrong = first->set_arg(2, 1.5f);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message, "kernel 'axpy': argument 3 is i32, but f32 was given");
  EXPECT_FALSE(first->set_arg(4, 1).ok());
}

// A recorded launch whose pipeline relies on its arguments being proven in
// bounds (abi/launch_proof.h) must be recorded anew when an argument changes,
// even one the push constants do not copy: here the pointer comes after 13
// f64 scalars, which fill them.
TEST_F(VulkanTest, RecordedProvenLaunchNeedsItsArguments) {
  std::string params;
  for (int i = 0; i < 13; ++i) params += " (param f64)";
  const std::string wat = "(module (memory 1) (func (export \"k\") (param $i i32)" + params +
                          " (param $p i32) (i32.store (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 2)))"
                          " (local.get $i))))";
  auto module = Module::load(*device, testing::wat_to_wasm(wat));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  auto kernel = module->kernel("k");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  auto out = device->create_buffer(256), small = device->create_buffer(16);
  ASSERT_TRUE(out.ok() && small.ok());
  std::vector<Arg> args(13, Arg(0.5));
  args.push_back(Arg(*out));
  auto arena = LaunchArena::create(*device);
  ASSERT_TRUE(arena.ok());
  OwnCommandBuffer own(device->state());
  VkCommandBuffer cmd = own.begin();
  auto launch = (*kernel)->record(cmd, LaunchShape::linear(64, 64), args, *arena);
  ASSERT_TRUE(launch.ok()) << launch.error().message;
  EXPECT_TRUE(launch->push_copy_current());
  // A scalar copied into the push constants: recorded anew, as always.
  ASSERT_TRUE(launch->set_arg(0, 0.25).ok());
  EXPECT_FALSE(launch->push_copy_current());
  ASSERT_TRUE(launch->set_arg(0, 0.5).ok());
  EXPECT_TRUE(launch->push_copy_current());
  // Another buffer for the pointer: its value is not in the push constants,
  // but the recorded pipeline skips the store's check only for the first.
  ASSERT_TRUE(launch->set_arg(13, *small).ok());
  EXPECT_FALSE(launch->push_copy_current());
  ASSERT_TRUE(launch->set_arg(13, *out).ok());
  EXPECT_TRUE(launch->push_copy_current());
  own.submit_and_wait();
  EXPECT_TRUE(read_trap(*launch).ok());
  auto written = out->read_as<uint32_t>(64);
  ASSERT_TRUE(written.ok());
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ((*written)[i], i);
}

TEST_F(VulkanTest, RecordedTrapIsReadAfterTheCallersWait) {
  auto kernel = Kernel::create(*device, glsl_kernel("divide", R"(
void kernel(uint index) {
  uint v = load32(arg32(0) + 4 * index, index);
  if (v == 0u) { trap(2, index); return; }
  store32(arg32(0) + 4 * index, 1000u / v, index);
}
)",
                                                    {ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const uint32_t n = 64;
  auto data = device->create_buffer(4 * n);
  auto clean = device->create_buffer(4 * n);
  ASSERT_TRUE(data.ok() && clean.ok());
  std::vector<uint32_t> values(n, 10);
  ASSERT_TRUE(clean->write(values).ok());
  values[33] = values[50] = 0;
  ASSERT_TRUE(data->write(values).ok());
  auto arena = LaunchArena::create(*device);
  ASSERT_TRUE(arena.ok());
  OwnCommandBuffer own(device->state());
  VkCommandBuffer cmd = own.begin();
  auto good = kernel->record(cmd, LaunchShape::linear(n), {*clean}, *arena);
  auto bad = kernel->record(cmd, LaunchShape::of_grid({2, 1, 1}, {32, 1, 1}), {*data}, *arena);
  ASSERT_TRUE(good.ok() && bad.ok());
  own.submit_and_wait();
  EXPECT_TRUE(read_trap(*good).ok());
  Status trapped = read_trap(*bad);
  ASSERT_FALSE(trapped.ok());
  EXPECT_EQ(trapped.error().message,
            "kernel 'divide' trapped: integer divide by zero at invocation 33 (2 invocations trapped)");
  ASSERT_TRUE(bad->trap().has_value());
  EXPECT_EQ(bad->trap()->invocation, 33u);
  EXPECT_EQ(bad->trap()->trapped_invocations, 2u);

  // Argument errors fail before anything is recorded.
  auto wrong = kernel->record(cmd, LaunchShape::linear(n), {1.0f}, *arena);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("is i32, but f32 was given"), std::string::npos);
}

// Many launches in one arena outgrow its first chunk; earlier blocks stay put.
TEST_F(VulkanTest, LaunchArenaGrowsWithoutMovingEarlierBlocks) {
  auto kernel = Kernel::create(*device, glsl_kernel("add", R"(
void kernel(uint index) { store32(arg32(0) + 4 * index, load32(arg32(0) + 4 * index, index) + arg32(1), index); }
)",
                                                    {ValType::I32, ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  // Buffers make each LaunchBlock's region table longer.
  std::vector<Buffer> buffers;
  for (int i = 0; i < 40; ++i) {
    auto buffer = device->create_buffer(64);
    ASSERT_TRUE(buffer.ok());
    buffers.push_back(std::move(buffer).value());
  }
  ASSERT_TRUE(buffers[0].fill(0).ok());
  auto arena = LaunchArena::create(*device);
  ASSERT_TRUE(arena.ok());
  OwnCommandBuffer own(device->state());
  VkCommandBuffer cmd = own.begin();
  const int launches = 120;  // 120 * ~800 bytes > 64 KiB
  for (int i = 0; i < launches; ++i)
    ASSERT_TRUE(kernel->record(cmd, LaunchShape::linear(16), {buffers[0], i + 1}, *arena).ok());
  EXPECT_GT(arena->capacity_bytes(), uint64_t(64 * 1024));
  own.submit_and_wait();
  auto out = buffers[0].read_as<uint32_t>(16);
  ASSERT_TRUE(out.ok());
  for (uint32_t v : *out) EXPECT_EQ(v, uint32_t(launches * (launches + 1) / 2));
  arena->reset();
  EXPECT_EQ(arena->used_bytes(), 0u);
}

}  // namespace
}  // namespace wasmgpu::runtime
