// Launches of GLSL shaders that implement the kernel ABI (abi/launch_abi.h)
// by hand: they prove the runtime's side of the contract on its own.
#include "runtime/launch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <numeric>

#include "runtime/device_state.h"
#include "runtime/kernel.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::glsl_kernel;
using testing::VulkanTest;
using wasm::ValType;

// dst[i] = {src[i] * mul + hi(add) + lo(add), bits(float(src[i]) * fmul + float(fadd))}
const char* kAbiKernel = R"(
void kernel(uint index) {
  uint dst = arg32(0), src = arg32(1), mul = arg32(2);
  uint64_t add = arg64(3);
  float fmul = uintBitsToFloat(arg32(4));
  double fadd = uint64BitsToDouble(arg64(5));
  uint v = load32(src + 4 * index, index);
  store32(dst + 8 * index, v * mul + uint(add >> 32) + uint(add), index);
  store32(dst + 8 * index + 4, floatBitsToUint(float(v) * fmul + float(fadd)), index);
}
)";

std::vector<ValType> abi_params() {
  return {ValType::I32, ValType::I32, ValType::I32, ValType::I64, ValType::F32, ValType::F64};
}

TEST_F(VulkanTest, AbiShaderReadsArgumentsAndTranslatesAddresses) {
  auto kernel = Kernel::create(*device, glsl_kernel("abi", kAbiKernel, abi_params()));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const uint32_t n = 1000;
  auto src = device->create_buffer(4 * n);
  auto dst = device->create_buffer(8 * n);
  ASSERT_TRUE(src.ok() && dst.ok());
  std::vector<uint32_t> input(n);
  for (uint32_t i = 0; i < n; ++i) input[i] = i * 7 + 1;
  ASSERT_TRUE(src->write(input).ok());
  const int64_t add = (int64_t(7) << 32) | 5;
  Status launched = kernel->launch(n, 64, {*dst, *src, 3, add, 0.5f, 2.0});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  auto out = dst->read_as<uint32_t>(2 * n);
  ASSERT_TRUE(out.ok());
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ((*out)[2 * i], input[i] * 3 + 12) << i;
    float expected = float(input[i]) * 0.5f + 2.0f;
    uint32_t bits;
    std::memcpy(&bits, &expected, 4);
    ASSERT_EQ((*out)[2 * i + 1], bits) << i;
  }
  // Launch again with a different workgroup size (a second pipeline).
  ASSERT_TRUE(kernel->launch(n, 1, {*dst, *src, 1, int64_t(0), 1.0f, 0.0}).ok());
  out = dst->read_as<uint32_t>(2);
  EXPECT_EQ((*out)[0], input[0]);
}

// Pointers stored in memory: every live buffer of the device is mapped.
TEST_F(VulkanTest, PointersStoredInBuffersResolve) {
  auto kernel = Kernel::create(*device, glsl_kernel("chase", R"(
void kernel(uint index) {
  uint pointer = load32(arg32(0) + 4 * index, index);
  store32(arg32(1) + 4 * index, load32(pointer, index), index);
}
)",
                                                    {ValType::I32, ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto a = device->create_buffer(16);
  auto b = device->create_buffer(100000);
  auto table = device->create_buffer(12);
  auto out = device->create_buffer(12);
  ASSERT_TRUE(a.ok() && b.ok() && table.ok() && out.ok());
  ASSERT_TRUE(a->write(std::vector<uint32_t>{11, 12, 13, 14}).ok());
  std::vector<uint32_t> b_data(25000);
  std::iota(b_data.begin(), b_data.end(), 100u);
  ASSERT_TRUE(b->write(b_data).ok());
  ASSERT_TRUE(
      table->write(std::vector<uint32_t>{*a->wasm_address() + 8, *b->wasm_address(), *b->wasm_address() + 99996}).ok());
  Status launched = kernel->launch(3, 0, {*table, *out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(*out->read_as<uint32_t>(3), (std::vector<uint32_t>{13, 100, 100 + 24999}));

  // One byte past the end of `a` lands in its guard: out of bounds.
  ASSERT_TRUE(table->write(std::vector<uint32_t>{*a->wasm_address() + 13}).ok());
  Status trapped = kernel->launch(1, 0, {*table, *out});
  ASSERT_FALSE(trapped.ok());
  EXPECT_EQ(trapped.error().message,
            "kernel 'chase' trapped: out of bounds memory access at invocation 0 "
            "(1 invocation trapped)");
}

TEST_F(VulkanTest, LinearMemoryIsMappedAtZero) {
  auto memory = device->create_buffer(65536);
  ASSERT_TRUE(memory.ok());
  ASSERT_TRUE(memory->write(std::vector<uint32_t>{0, 0, 0, 0, 42}).ok());
  auto kernel = Kernel::create(*device,
                               glsl_kernel("mem", R"(
void kernel(uint index) {
  store32(arg32(0) + 4 * index, load32(16 + 65520 * index, index), index);
}
)",
                                           {ValType::I32}, 65536),
                               &*memory);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto out = device->create_buffer(8);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(kernel->launch(1, 0, {*out}).ok());
  EXPECT_EQ(out->read_as<uint32_t>(1)->at(0), 42u);
  // Invocation 1 reads [65536, 65540): past the memory.
  Status trapped = kernel->launch(2, 0, {*out});
  ASSERT_FALSE(trapped.ok());
  EXPECT_NE(trapped.error().message.find("out of bounds memory access at invocation 1"), std::string::npos);

  auto needs_memory = Kernel::create(*device, glsl_kernel("mem", "void kernel(uint i) {}", {}, 65536));
  ASSERT_FALSE(needs_memory.ok());
  EXPECT_NE(needs_memory.error().message.find("needs 64 KiB of linear memory"), std::string::npos);
}

TEST_F(VulkanTest, GridsBeyondTheWorkgroupCountLimitAreSplit) {
  auto kernel = Kernel::create(*device, glsl_kernel("iota", R"(
void kernel(uint index) { store32(arg32(0) + 4 * index, index ^ 0x5a5a5a5au, index); }
)",
                                                    {ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const uint32_t limit = device->info().limits.max_workgroup_count[0];
  // Workgroup size 1 keeps this small on lavapipe (limit 65535).
  const uint32_t n = std::min<uint64_t>(uint64_t(limit) + 4465, 1u << 22);
  auto out = device->create_buffer(4 * uint64_t(n));
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->fill(0).ok());
  Status launched = kernel->launch(n, 1, {*out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  auto data = out->read_as<uint32_t>(n);
  ASSERT_TRUE(data.ok());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ((*data)[i], i ^ 0x5a5a5a5au) << i;
  EXPECT_EQ(device->state().stacks, nullptr);  // no stacks for a stackless kernel
}

// Each invocation writes its index into its stack slot, then reads it back:
// slots are reused by later dispatches, which must see their own values.
TEST_F(VulkanTest, StacksAreBoundedAndReusedAcrossDispatches) {
  const uint32_t slot_size = 4 << 20;  // 4 MiB: 16 slots fit the 64 MiB budget
  auto kernel = Kernel::create(*device, glsl_kernel("stacky", R"(
void kernel(uint index) {
  uint64_t slot = stack_slot();
  Words(slot).w[0] = index;
  Words(slot + 4194300).w[0] = index * 3u;
  store32(arg32(0) + 8 * index, Words(slot).w[0], index);
  store32(arg32(0) + 8 * index + 4, gl_GlobalInvocationID.x + Words(slot + 4194300).w[0] - index * 3u, index);
}
)",
                                                    {ValType::I32}, 0, slot_size));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const uint32_t n = 100;
  auto out = device->create_buffer(8 * n);
  ASSERT_TRUE(out.ok());
  Status launched = kernel->launch(n, 4, {*out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  auto data = out->read_as<uint32_t>(2 * n);
  ASSERT_TRUE(data.ok());
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ((*data)[2 * i], i);
    ASSERT_LT((*data)[2 * i + 1], 16u) << "slot index beyond the allocated stacks";
  }
  ASSERT_NE(device->state().stacks, nullptr);
  EXPECT_EQ(device->state().stacks->raw.size, uint64_t(16) * slot_size);
  // A small launch does not need more slots than invocations (rounded to the workgroup).
  auto small = Kernel::create(*device, glsl_kernel("stacky", "void kernel(uint i) {}", {ValType::I32}, 0, 16));
  ASSERT_TRUE(small.ok());
  ASSERT_TRUE(small->launch(3, 2, {*out}).ok());
}

TEST_F(VulkanTest, TrapReportsLowestIndexAndCount) {
  auto kernel = Kernel::create(*device, glsl_kernel("divide", R"(
void kernel(uint index) {
  uint v = load32(arg32(0) + 4 * index, index);
  if (v == 0u) { trap(2, index); return; }   // integer divide by zero
  if (v == 1u) { trap(3, index); return; }   // integer overflow
  store32(arg32(0) + 4 * index, 1000u / v, index);
}
)",
                                                    {ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const uint32_t n = 100;
  auto data = device->create_buffer(4 * n);
  ASSERT_TRUE(data.ok());
  std::vector<uint32_t> values(n, 10);
  values[90] = values[40] = values[17] = 0;
  ASSERT_TRUE(data->write(values).ok());
  Status first = kernel->launch(n, 8, {*data});
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().message,
            "kernel 'divide' trapped: integer divide by zero at invocation 17 "
            "(3 invocations trapped)");
  // Kinds compete by index: the overflow at 5 is now the lowest.
  values[5] = 1;
  ASSERT_TRUE(data->write(values).ok());
  Status second = kernel->launch(n, 8, {*data});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message,
            "kernel 'divide' trapped: integer overflow at invocation 5 (4 invocations trapped)");
  // The trap record is reset for each launch.
  std::fill(values.begin(), values.end(), 10);
  ASSERT_TRUE(data->write(values).ok());
  Status clean = kernel->launch(n, 8, {*data});
  EXPECT_TRUE(clean.ok()) << clean.error().message;
}

TEST_F(VulkanTest, ArgumentCountAndTypesAreChecked) {
  auto kernel = Kernel::create(*device, glsl_kernel("abi", kAbiKernel, abi_params()));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto buffer = device->create_buffer(64);
  ASSERT_TRUE(buffer.ok());

  Status too_few = kernel->launch(1, 0, {*buffer, *buffer});
  ASSERT_FALSE(too_few.ok());
  EXPECT_EQ(too_few.error().message,
            "kernel 'abi' takes 6 argument(s) after the invocation index (i32, i32, i32, i64, "
            "f32, f64), but 2 were given");

  Status wrong_int = kernel->launch(1, 0, {*buffer, *buffer, 3, 4, 0.5f, 2.0});
  ASSERT_FALSE(wrong_int.ok());
  EXPECT_EQ(wrong_int.error().message,
            "kernel 'abi': argument 4 (parameter 4 of the wasm function) is i64, but i32 was "
            "given");

  Status float_for_double = kernel->launch(1, 0, {*buffer, *buffer, 3, int64_t(4), 0.5f, 2.0f});
  ASSERT_FALSE(float_for_double.ok());
  EXPECT_NE(float_for_double.error().message.find("argument 6 (parameter 6 of the wasm function) "
                                                  "is f64, but f32 was given"),
            std::string::npos);

  Status buffer_for_float = kernel->launch(1, 0, {*buffer, *buffer, 3, int64_t(4), *buffer, 2.0});
  ASSERT_FALSE(buffer_for_float.ok());
  EXPECT_NE(buffer_for_float.error().message.find("is f32, but a Buffer was given"), std::string::npos);

  Buffer moved = std::move(buffer).value();
  Status moved_from = kernel->launch(1, 0, {*buffer, moved, 3, int64_t(4), 0.5f, 2.0});
  ASSERT_FALSE(moved_from.ok());
  EXPECT_NE(moved_from.error().message.find("argument 1 (parameter 1 of the wasm function): the "
                                            "Buffer was moved from"),
            std::string::npos);

  Status big_group = kernel->launch(1, 1u << 20, {moved, moved, 3, int64_t(4), 0.5f, 2.0});
  ASSERT_FALSE(big_group.ok());
  EXPECT_NE(big_group.error().message.find("workgroup size 1048576 exceeds"), std::string::npos);

  EXPECT_TRUE(kernel->launch(0, 0, {moved, moved, 3, int64_t(4), 0.5f, 2.0}).ok());
}

TEST_F(VulkanTest, BufferWithoutWasmAddressIsRefusedAtLaunch) {
  // Reserve most of the address space directly, as if large buffers held it.
  AddressAllocator& addresses = device->state().addresses;
  const uint32_t hog = *addresses.allocate(uint64_t(3) << 30);
  auto unmapped = device->create_buffer(uint64_t(800) << 20);
  ASSERT_TRUE(unmapped.ok()) << unmapped.error().message;
  EXPECT_FALSE(unmapped->wasm_address());
  auto kernel = Kernel::create(*device, glsl_kernel("iota", "void kernel(uint i) {}", {ValType::I32}));
  ASSERT_TRUE(kernel.ok());
  Status refused = kernel->launch(1, 0, {*unmapped});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("the 800 MiB Buffer has no wasm address"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("mapped now: 0 buffer(s) reserving 3.0 GiB"), std::string::npos)
      << refused.error().message;
  addresses.free(hog);
}

// A device without shaderFloat64, made by hiding the feature.
class DeviceWithoutFloat64 : public VulkanTest {
 protected:
  void SetUp() override {
    setenv("WASMGPU_HIDE_FEATURES", "float64", 1);
    VulkanTest::SetUp();
    unsetenv("WASMGPU_HIDE_FEATURES");
  }
};

TEST_F(DeviceWithoutFloat64, Float64KernelNeedsShaderFloat64) {
  ASSERT_FALSE(device->float64_enabled());
  EXPECT_FALSE(device->info().features.shader_float64);
  auto kernel = glsl_kernel("f64", "void kernel(uint i) {}", {ValType::F64});
  auto created = Kernel::create(*device, std::move(kernel));
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.error().message.find("shaderFloat64"), std::string::npos);
}

TEST_F(VulkanTest, TimeoutIsReportedAndTheDeviceRecovers) {
  auto kernel = Kernel::create(*device, glsl_kernel("spin", R"(
void kernel(uint index) {
  uint x = index + 1u;
  for (uint i = 0u; i < arg32(1); ++i) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; }
  store32(arg32(0) + 4 * index, x, index);
}
)",
                                                    {ValType::I32, ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto out = device->create_buffer(16);
  auto scratch = device->create_buffer(16);
  ASSERT_TRUE(out.ok() && scratch.ok());
  LaunchOptions no_wait;
  no_wait.timeout = std::chrono::nanoseconds(0);
  Status timed_out = kernel->launch(1, 1, {*out, 30'000'000u}, no_wait);
  ASSERT_FALSE(timed_out.ok());
  EXPECT_NE(timed_out.error().message.find(
                "kernel 'spin' did not finish: the kernel ran longer than 0 s, the launch timeout (VK_TIMEOUT)"),
            std::string::npos)
      << timed_out.error().message;
  // While it runs, new work is refused rather than waited for.
  Status busy = out->fill(0);
  if (!busy.ok()) {
    EXPECT_NE(busy.error().message.find("is busy: kernel 'spin' timed out and is still running"), std::string::npos)
        << busy.error().message;
  }
  // Destroying a buffer the running kernel maps is deferred until it finishes.
  {
    Buffer doomed = std::move(scratch).value();
  }
  Status waited = device->wait();
  ASSERT_TRUE(waited.ok()) << waited.error().message;
  EXPECT_FALSE(device->lost());
  Status again = kernel->launch(1, 1, {*out, 10u});
  ASSERT_TRUE(again.ok()) << again.error().message;
}

}  // namespace
}  // namespace wasmgpu::runtime

namespace wasmgpu::runtime {
namespace {

// A lost device (simulated: the driver cannot be made to lose one on demand)
// refuses every later call with an error instead of aborting.
TEST_F(VulkanTest, LostDeviceRefusesEveryCall) {
  auto buffer = device->create_buffer(64);
  auto kernel = Kernel::create(*device, testing::glsl_kernel("k", "void kernel(uint i) {}", {wasm::ValType::I32}));
  ASSERT_TRUE(buffer.ok() && kernel.ok());
  Error error = device->state().fail("vkQueueSubmit", VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(error.message, "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST");
  EXPECT_EQ(error.code, ErrorCode::DeviceLost);
  EXPECT_EQ(error.vk_result, int32_t(VK_ERROR_DEVICE_LOST));
  EXPECT_TRUE(device->lost());
  const std::string expected = "is lost (vkQueueSubmit failed: VK_ERROR_DEVICE_LOST)";
  Status launched = kernel->launch(1, 0, {*buffer});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find(expected), std::string::npos) << launched.error().message;
  EXPECT_EQ(launched.error().code, ErrorCode::DeviceLost);
  EXPECT_EQ(launched.error().vk_result, int32_t(VK_ERROR_DEVICE_LOST));
  EXPECT_EQ(device->create_buffer(16).error().code, ErrorCode::DeviceLost);
  uint32_t word = 0;
  EXPECT_FALSE(buffer->write(&word, 4).ok());
  EXPECT_FALSE(buffer->read(&word, 4).ok());
  EXPECT_FALSE(buffer->fill(0).ok());
  EXPECT_FALSE(device->create_buffer(16).ok());
  EXPECT_FALSE(device->wait().ok());
}

}  // namespace
}  // namespace wasmgpu::runtime
