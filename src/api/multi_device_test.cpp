// Several devices: one module loaded on two Devices (the same physical device
// opened twice is two Devices), and resources of one refused by the other.
#include <gtest/gtest.h>

#include "api/test_support.h"

namespace wasmgpu {
namespace {

using ApiDevices = testing::ValidatedTest;
using testing::expect_exception;
using testing::kernel_path;

TEST_F(ApiDevices, SameModuleOnTwoDevicesAndForeignBuffersRefused) {
  {
    Device first = Device::open();
    Device second = Device::open(first.info().index);
    Module m1 = first.load_file(kernel_path("kernels"));
    Module m2 = second.load_file(kernel_path("kernels"));
    const std::vector<float> xs = {1, 2, 3, 4};
    Buffer<float> x1 = first.upload(xs), y1 = first.buffer<float>(4);
    Buffer<float> x2 = second.upload(xs), y2 = second.upload(std::vector<float>(4, 10.0f));
    m1.kernel("saxpy")(4, 2.0f, x1, y1);
    m2.kernel("saxpy")(4, 3.0f, x2, y2);
    EXPECT_EQ(y1.read(), (std::vector<float>{2, 4, 6, 8}));
    EXPECT_EQ(y2.read(), (std::vector<float>{13, 16, 19, 22}));
    // Each module has its own memory.
    Buffer<int> counts1 = first.buffer<int>(256), counts2 = second.buffer<int>(256);
    m1.kernel("bump")(256, 4);
    m1.kernel("read_counters")(256, counts1);
    m2.kernel("read_counters")(256, counts2);
    EXPECT_EQ(counts1.read(), std::vector<int>(256, 4));
    EXPECT_EQ(counts2.read(), std::vector<int>(256, 0));

    Exception launch = expect_exception([&] { m1.kernel("saxpy")(4, 2.0f, x1, y2); });
    EXPECT_EQ(launch.kind(), ErrorKind::WrongDevice);
    const std::string message = launch.what();
    EXPECT_NE(message.find("kernel 'saxpy', parameter 'y' (argument 3 of 3): the Buffer belongs to Device #"),
              std::string::npos)
        << message;
    // Both devices are named, told apart by their number.
    const size_t first_device = message.find("Device #"), second_device = message.rfind("Device #");
    ASSERT_NE(first_device, second_device) << message;
    // "Device #N" up to the space after the number, whatever its digits.
    auto label = [&](size_t at) { return message.substr(at, message.find(' ', at + 7) - at); };
    EXPECT_NE(label(first_device), label(second_device)) << message;
    EXPECT_NE(message.find(", but the kernel runs on Device #"), std::string::npos) << message;

    CommandBuffer commands = first.command_buffer();
    Exception kernel = expect_exception([&] { commands.launch(m2.kernel("saxpy"), 4, 2.0f, x1, y1); });
    EXPECT_EQ(kernel.kind(), ErrorKind::WrongDevice);
    EXPECT_NE(std::string(kernel.what()).find("kernel 'saxpy' was loaded on Device #"), std::string::npos)
        << kernel.what();
    Exception copy = expect_exception([&] { commands.copy(x2, y1); });
    EXPECT_EQ(copy.kind(), ErrorKind::WrongDevice);
    EXPECT_NE(std::string(copy.what()).find("copy source: the Buffer belongs to Device #"), std::string::npos)
        << copy.what();
  }
}

}  // namespace
}  // namespace wasmgpu
