// The public API over the device interface's test double (device/fake):
// its argument checks and misuse errors run, and what passes them reaches
// the device, without Vulkan (this binary does not link the runtime).
#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/test_support.h"
#include "device/fake/fake_device.h"
#include "support/environment.h"
#include "wasmgpu/wasmgpu.hpp"

namespace wasmgpu {
namespace {

using device::BackendArg;
using device::fake::fake_log;

using wasmgpu::testing::expect_exception;

std::string kernels_path() { return std::string(WASMGPU_API_KERNELS_DIR) + "/kernels.wasm"; }

class ApiSeamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_log() = {};
    device.emplace(Device::open(0));
    module.emplace(device->load_file(kernels_path()));
  }
  std::optional<Device> device;
  std::optional<Module> module;
};

TEST(ApiSeamDevices, SelectionByIndexAndNameRunsOverThePlatform) {
  ASSERT_EQ(devices().size(), 2u);
  EXPECT_EQ(devices()[1].name, "Fake Display");
  EXPECT_FALSE(devices()[1].usable());
  EXPECT_EQ(Device::open(0).info().name, "Fake GPU");
  DeviceOptions by_name;
  by_name.name = "gpu";
  EXPECT_EQ(Device::open(by_name).info().name, "Fake GPU");
  Exception missing = expect_exception([] { Device::open(5); });
  EXPECT_EQ(missing.kind(), ErrorKind::NotFound);
  EXPECT_STREQ(missing.what(), "no Vulkan device with index 5; devices: 0 Fake GPU (fake); 1 Fake Display (fake);");
  Exception unusable = expect_exception([] { Device::open(1); });
  EXPECT_EQ(unusable.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(unusable.what(),
               "Vulkan device 1 Fake Display (fake) cannot run wasmgpu kernels: it only shows pictures");
  DeviceOptions nothing;
  nothing.name = "tpu";
  EXPECT_EQ(expect_exception([&] { Device::open(nothing); }).kind(), ErrorKind::NotFound);
  // The default device follows WASMGPU_DEVICE through the platform's choice.
  const std::optional<std::string> previous = environment::device();
  setenv("WASMGPU_DEVICE", "display", 1);
  const DefaultDevice display = default_device();
  EXPECT_FALSE(display.index.has_value());
  EXPECT_EQ(display.reason, "device 1 Fake Display (fake) is unusable: it only shows pictures");
  setenv("WASMGPU_DEVICE", "GPU", 1);
  EXPECT_EQ(default_device().index, std::optional<uint32_t>(0));
  if (previous)
    setenv("WASMGPU_DEVICE", previous->c_str(), 1);
  else
    unsetenv("WASMGPU_DEVICE");
  Device moved = Device::open(0);
  Device other = std::move(moved);
  Exception use = expect_exception([&] { moved.info(); });
  EXPECT_EQ(use.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(use.what(), "use of a moved-from Device");
}

TEST_F(ApiSeamTest, BufferRangesAndMovesAreChecked) {
  Buffer<float> buffer = device->buffer<float>(8);
  std::vector<float> big(9, 1.0f);
  Exception write = expect_exception([&] { buffer.write(big); });
  EXPECT_EQ(write.kind(), ErrorKind::BufferTooSmall);
  EXPECT_STREQ(write.what(), "Buffer::write of 36 bytes at offset 0 does not fit the 32-byte buffer");
  std::vector<float> out(4);
  Exception read = expect_exception([&] { buffer.read(std::span<float>(out), 5); });
  EXPECT_EQ(read.kind(), ErrorKind::BufferTooSmall);
  EXPECT_STREQ(read.what(), "Buffer::read of 16 bytes at offset 20 does not fit the 32-byte buffer");
  EXPECT_EQ(buffer.read(), std::vector<float>(8, 0.0f));  // zero-filled by the API through the device
  buffer.write(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(buffer.read()[7], 8.0f);
  Buffer<float> moved = std::move(buffer);
  Exception use = expect_exception([&] { buffer.write(std::vector<float>{1}); });
  EXPECT_EQ(use.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(use.what(), "Buffer::write on a moved-from buffer");
  // The device's own refusal comes back as the API's error kind.
  Exception huge = expect_exception([&] { device->buffer_bytes(uint64_t(1) << 30); });
  EXPECT_EQ(huge.kind(), ErrorKind::Unsupported);
}

TEST_F(ApiSeamTest, LoadAndKernelLookupErrors) {
  const std::vector<uint8_t> junk = {1, 2, 3, 4, 5};
  Exception bad = expect_exception([&] { device->load(junk); });
  EXPECT_EQ(bad.kind(), ErrorKind::Compile);
  EXPECT_NE(std::string(bad.what()).find("neither a wasm module"), std::string::npos);
  const std::vector<uint8_t> truncated = {0, 'a', 's', 'm', 1, 0};
  EXPECT_EQ(expect_exception([&] { device->load(truncated); }).kind(), ErrorKind::Compile);
  Exception missing = expect_exception([&] { device->load_file("/nonexistent/kernel.wasm"); });
  EXPECT_EQ(missing.kind(), ErrorKind::Io);
  Exception unknown = expect_exception([&] { module->kernel("sax"); });
  EXPECT_EQ(unknown.kind(), ErrorKind::NotFound);
  EXPECT_NE(std::string(unknown.what()).find("the module has no kernel named 'sax' (its kernels: 'saxpy', 'scale'"),
            std::string::npos)
      << unknown.what();
  Module moved = std::move(*module);
  Exception use = expect_exception([&] { module->kernel("saxpy"); });
  EXPECT_EQ(use.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(use.what(), "use of a moved-from Module");
}

TEST_F(ApiSeamTest, ArgumentsAreCheckedBeforeTheDeviceSeesThem) {
  Kernel saxpy = module->kernel("saxpy");
  Buffer<float> x = device->buffer<float>(16);
  Buffer<float> y = device->buffer<float>(16);
  Exception count = expect_exception([&] { saxpy(16, 2.0f, x); });
  EXPECT_EQ(count.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(count.what(),
               "kernel 'saxpy' takes 3 argument(s) after the launch shape (a: f32 (float), x: a Buffer "
               "(read-only) of float (4-byte elements), y: a Buffer of float (4-byte elements)), but 2 "
               "were given: no argument for 'y'");
  Exception type = expect_exception([&] { saxpy(16, 2.0, x, y); });
  EXPECT_STREQ(type.what(),
               "kernel 'saxpy', parameter 'a' (argument 1 of 3): expected f32 (float), but double 2 was given");
  Exception scalar_for_buffer = expect_exception([&] { saxpy(16, 2.0f, 7, y); });
  EXPECT_STREQ(scalar_for_buffer.what(),
               "kernel 'saxpy', parameter 'x' (argument 2 of 3): expected a Buffer (read-only) of float "
               "(4-byte elements), but int32 7 was given");
  Buffer<double> doubles = device->buffer<double>(16);
  Exception element = expect_exception([&] { saxpy(16, 2.0f, x, doubles); });
  EXPECT_STREQ(element.what(),
               "kernel 'saxpy', parameter 'y' (argument 3 of 3): expected a Buffer of float (4-byte elements), "
               "but a Buffer of 16 8-byte elements was given (element sizes differ)");
  Exception unknown = expect_exception([&] { saxpy(16, arg("a", 1.0f), arg("x", x), arg("z", y)); });
  EXPECT_STREQ(unknown.what(), "kernel 'saxpy' has no parameter named 'z' (its parameters: 'a', 'x', 'y')");
  Exception mixed = expect_exception([&] { saxpy(16, 1.0f, arg("x", x), y); });
  EXPECT_STREQ(mixed.what(), "kernel 'saxpy': 1 of the 3 arguments are named; name all of them or none");
  Exception wide = expect_exception([&] { module->kernel("scale")(4, y, int64_t(3)); });
  EXPECT_STREQ(wide.what(),
               "kernel 'scale', parameter 'factor' (argument 2 of 2): expected f32 (float), but int64 3 was given");
  EXPECT_EQ(expect_exception([&] { saxpy(-1, 1.0f, x, y); }).kind(), ErrorKind::InvalidArgument);
  Buffer<float> moved = std::move(x);
  Exception moved_from = expect_exception([&] { saxpy(16, 1.0f, x, y); });
  EXPECT_EQ(moved_from.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(moved_from.what(),
               "kernel 'saxpy', parameter 'x' (argument 2 of 3): the Buffer was moved from or destroyed");
  // Nothing refused reached the device; a good launch does, bound in
  // parameter order whichever order the names came in.
  EXPECT_TRUE(fake_log().launches.empty());
  saxpy(16, arg("y", y), arg("a", 2.5f), arg("x", moved));
  ASSERT_EQ(fake_log().launches.size(), 1u);
  const device::fake::FakeLaunch& launch = fake_log().launches[0];
  EXPECT_EQ(launch.kernel, "saxpy");
  EXPECT_EQ(launch.shape.n, 16u);
  EXPECT_EQ(launch.kinds, (std::vector<BackendArg::Kind>{BackendArg::Kind::Scalar, BackendArg::Kind::Buffer,
                                                         BackendArg::Kind::Buffer}));
  EXPECT_EQ(launch.bits[0], std::bit_cast<uint32_t>(2.5f));
}

TEST_F(ApiSeamTest, OtherDevicesObjectsAreRefused) {
  Device second = Device::open(0);
  Module other_module = second.load_file(kernels_path());
  Buffer<float> x = device->buffer<float>(4);
  Buffer<float> y = device->buffer<float>(4);
  Buffer<float> foreign = second.buffer<float>(4);
  Exception launch = expect_exception([&] { module->kernel("saxpy")(4, 2.0f, x, foreign); });
  EXPECT_EQ(launch.kind(), ErrorKind::WrongDevice);
  EXPECT_NE(std::string(launch.what())
                .find("kernel 'saxpy', parameter 'y' (argument 3 of 3): the Buffer belongs to "
                      "Device #"),
            std::string::npos)
      << launch.what();
  CommandBuffer commands = device->command_buffer();
  Exception kernel = expect_exception([&] { commands.launch(other_module.kernel("saxpy"), 4, 2.0f, x, y); });
  EXPECT_EQ(kernel.kind(), ErrorKind::WrongDevice);
  EXPECT_NE(std::string(kernel.what()).find("kernel 'saxpy' was loaded on Device #"), std::string::npos);
  Exception copy = expect_exception([&] { commands.copy(foreign, y); });
  EXPECT_EQ(copy.kind(), ErrorKind::WrongDevice);
  EXPECT_NE(std::string(copy.what()).find("copy source: the Buffer belongs to Device #"), std::string::npos);
}

TEST_F(ApiSeamTest, CommandBufferMisuseIsRefused) {
  CommandBuffer commands = device->command_buffer();
  Exception empty = expect_exception([&] { commands.submit(); });
  EXPECT_STREQ(empty.what(), "submit of an empty CommandBuffer");
  Buffer<int> a = device->upload(std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  Buffer<int> b = device->buffer<int>(4);
  Exception big = expect_exception([&] { commands.copy(a, b); });
  EXPECT_EQ(big.kind(), ErrorKind::BufferTooSmall);
  EXPECT_STREQ(big.what(), "copy of 32 bytes to offset 0 of a 16-byte destination buffer");
  Exception source = expect_exception([&] { commands.copy(b, a, 8, 12); });
  EXPECT_STREQ(source.what(), "copy of 8 bytes from offset 12 of a 16-byte source buffer");
  Exception overlap = expect_exception([&] { commands.copy(a, a, 16, 0, 8); });
  EXPECT_EQ(overlap.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(overlap.what(),
               "copy within one buffer between overlapping ranges (16 bytes from offset 0 to offset 8)");
  // What passes the checks runs on the device, in order.
  commands.copy(a, b, 16, 16);
  commands.fill(a, 9);
  commands.submit().wait();
  EXPECT_EQ(b.read(), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(a.read(), std::vector<int>(8, 9));
  Exception fixed = expect_exception([&] { commands.barrier(); });
  EXPECT_EQ(fixed.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(std::string(fixed.what()).find("CommandBuffer::barrier after submit()"), std::string::npos);

  Buffer<float> x = device->buffer<float>(16);
  std::optional<Buffer<float>> y(device->buffer<float>(16));
  CommandBuffer launches = device->command_buffer();
  const LaunchId id = launches.launch(module->kernel("saxpy"), 16, 1.0f, x, *y);
  Exception type = expect_exception([&] { launches.set_argument(id, "a", 3); });
  EXPECT_STREQ(type.what(),
               "kernel 'saxpy', parameter 'a' (argument 1 of 3): expected f32 (float), but int32 3 was given");
  Exception not_scalar = expect_exception([&] { launches.set_argument(id, "y", x); });
  EXPECT_STREQ(not_scalar.what(),
               "set_argument: parameter 'y' of kernel 'saxpy' (launch 0) is not a scalar; only scalars can "
               "change between submissions (record the launch anew)");
  y.reset();
  Exception destroyed = expect_exception([&] { launches.submit(); });
  EXPECT_EQ(destroyed.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(destroyed.what(),
               "submit: launch 0 (kernel 'saxpy'): the Buffer for parameter 'y' was destroyed after it was recorded");
  CommandBuffer moved = std::move(commands);
  Exception use = expect_exception([&] { commands.barrier(); });
  EXPECT_EQ(use.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(use.what(), "CommandBuffer::barrier on a moved-from CommandBuffer");
}

// A device without GPU timestamps, staging buffers or device addresses (the
// double, as the cpu device) refuses each as Unsupported; a command buffer
// whose timed submit was refused still runs untimed.
TEST_F(ApiSeamTest, TimingStagingAndAddressesNeedTheDevicesSupport) {
  Buffer<int> a = device->upload(std::vector<int>{1, 2, 3, 4});
  CommandBuffer commands = device->command_buffer();
  commands.fill(a, 7);
  commands.set_gpu_timing(true);
  Exception timing = expect_exception([&] { commands.submit(); });
  EXPECT_EQ(timing.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(timing.what(), "this device has no GPU timestamps");
  commands.set_gpu_timing(false);
  commands.submit().wait();
  EXPECT_EQ(a.read(), std::vector<int>(4, 7));
  Exception staging = expect_exception([&] { device->staging_buffer(64); });
  EXPECT_EQ(staging.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(staging.what(), "this device has no staging buffers");
  Exception address = expect_exception([&] { (void)a.device_address(); });
  EXPECT_EQ(address.kind(), ErrorKind::Unsupported);
  EXPECT_NE(std::string(address.what()).find("has no buffer device addresses"), std::string::npos) << address.what();
}

TEST_F(ApiSeamTest, RecordedScalarsChangeWithoutARecording) {
  Buffer<float> x = device->buffer<float>(16);
  Buffer<float> y = device->buffer<float>(16);
  CommandBuffer commands = device->command_buffer();
  const LaunchId id = commands.launch(module->kernel("saxpy"), 16, 1.0f, x, y);
  commands.submit().wait();
  commands.set_argument(id, "a", 4.0f);
  commands.submit().wait();
  ASSERT_EQ(fake_log().launches.size(), 2u);
  EXPECT_EQ(fake_log().launches[0].bits[0], std::bit_cast<uint32_t>(1.0f));
  EXPECT_EQ(fake_log().launches[1].bits[0], std::bit_cast<uint32_t>(4.0f));
  EXPECT_EQ(fake_log().submits, 2u);
}

TEST_F(ApiSeamTest, ImageSizesAreChecked) {
  Exception zero = expect_exception([&] { device->image_2d(0, 4, ImageFormat::R32F); });
  EXPECT_EQ(zero.kind(), ErrorKind::InvalidArgument);
  Image image = device->image_2d(4, 1, ImageFormat::R32F);
  EXPECT_EQ(image.size_bytes(), 16u);
  const std::vector<float> three(3, 1.0f);
  Exception small = expect_exception([&] { image.write(three); });
  EXPECT_EQ(small.kind(), ErrorKind::BufferTooSmall);
  EXPECT_NE(std::string(small.what()).find("Image::write of 12 bytes; the 4x1 r32f image has 16"), std::string::npos)
      << small.what();
  Image moved = std::move(image);
  EXPECT_EQ(expect_exception([&] { image.width(); }).kind(), ErrorKind::UseAfterMove);
}

}  // namespace
}  // namespace wasmgpu
