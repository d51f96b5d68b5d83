// Buffers through the public API: typed host data, ranges, misuse.
#include "wasmgpu/buffer.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "api/test_support.h"

namespace wasmgpu {
namespace {

using ApiBuffer = testing::ValidatedTest;
using testing::ApiTest;
using testing::expect_exception;

TEST_F(ApiTest, BuffersRoundTripTypedData) {
  Buffer<float> zeros = device->buffer<float>(100);
  EXPECT_EQ(zeros.count(), 100u);
  EXPECT_EQ(zeros.size_bytes(), 400u);
  EXPECT_EQ(zeros.element_size(), 4u);
  EXPECT_EQ(zeros.read(), std::vector<float>(100, 0.0f));

  std::vector<int64_t> values(37);
  std::iota(values.begin(), values.end(), -5);
  Buffer<int64_t> uploaded = device->upload(values);
  EXPECT_EQ(uploaded.read(), values);
  // Part of it, at an element offset.
  const std::vector<int64_t> patch = {100, 200, 300};
  uploaded.write(patch, 10);
  std::vector<int64_t> part(5);
  uploaded.read(std::span<int64_t>(part), 8);
  EXPECT_EQ(part, (std::vector<int64_t>{3, 4, 100, 200, 300}));

  uploaded.fill(0x01010101u);
  for (int64_t v : uploaded.read()) EXPECT_EQ(v, 0x0101010101010101ll);

  BufferBase raw = device->buffer_bytes(10);
  EXPECT_EQ(raw.size_bytes(), 10u);
  const std::byte bytes[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  raw.write_bytes(bytes, 7);
  std::vector<std::byte> all = raw.read_bytes();
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[6], std::byte{0});
  EXPECT_EQ(all[9], std::byte{3});
  EXPECT_EQ(raw.device().name, device->info().name);
}

TEST_F(ApiTest, BufferRangesAreChecked) {
  Buffer<float> buffer = device->buffer<float>(8);
  std::vector<float> big(9, 1.0f);
  Exception write = expect_exception([&] { buffer.write(big); });
  EXPECT_EQ(write.kind(), ErrorKind::BufferTooSmall);
  EXPECT_STREQ(write.what(), "Buffer::write of 36 bytes at offset 0 does not fit the 32-byte buffer");
  std::vector<float> out(4);
  Exception read = expect_exception([&] { buffer.read(std::span<float>(out), 5); });
  EXPECT_EQ(read.kind(), ErrorKind::BufferTooSmall);
  EXPECT_STREQ(read.what(), "Buffer::read of 16 bytes at offset 20 does not fit the 32-byte buffer");
  // Nothing was written by the refused write.
  EXPECT_EQ(buffer.read(), std::vector<float>(8, 0.0f));
}

TEST_F(ApiTest, MovedFromBufferIsAnError) {
  Buffer<int> a = device->buffer<int>(4);
  Buffer<int> b = std::move(a);
  EXPECT_FALSE(a.valid());
  EXPECT_TRUE(b.valid());
  Exception read = expect_exception([&] { a.read(); });
  EXPECT_EQ(read.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(read.what(), "Buffer::size_bytes on a moved-from buffer");
  Exception write = expect_exception([&] { a.write(std::vector<int>{1}); });
  EXPECT_EQ(write.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(write.what(), "Buffer::write on a moved-from buffer");
  b.write(std::vector<int>{1, 2, 3, 4});
  EXPECT_EQ(b.read(), (std::vector<int>{1, 2, 3, 4}));
}

// Buffers outlive the Device handle: the device closes with its last handle.
TEST_F(ApiBuffer, BufferKeepsItsDeviceOpen) {
  std::optional<Buffer<int>> buffer;
  {
    Device device = Device::open();
    buffer.emplace(device.upload(std::vector<int>{7, 8, 9}));
  }
  EXPECT_EQ(buffer->read(), (std::vector<int>{7, 8, 9}));
  buffer.reset();
}

}  // namespace
}  // namespace wasmgpu

namespace wasmgpu {
namespace {

using testing::ApiTest;
using testing::expect_exception;

std::string fixture(const std::string& name) { return std::string(WASMGPU_SPIRV_FIXTURES_DIR) + "/" + name; }

// A buffer's device address given to SPIR-V that takes its buffer as a
// GL_EXT_buffer_reference pointer in a push constant.
TEST_F(ApiTest, DeviceAddressesReachBuffersFromBufferReferences) {
  const uint32_t n = 300;
  std::vector<float> values(n);
  for (uint32_t i = 0; i < n; ++i) values[i] = float(i) - 7.5f;
  Buffer<float> data = device->upload(values), other = device->buffer<float>(n);
  EXPECT_NE(data.device_address(), 0u);
  EXPECT_NE(data.device_address(), other.device_address());
  Module glsl = device->load_file(fixture("buffer_reference.spv"));
  Kernel scale = glsl.kernel("main");
  ASSERT_EQ(scale.interface().params.size(), 3u);
  EXPECT_EQ(scale.interface().params[0].kind, ParamKind::Bytes);
  EXPECT_EQ(scale.interface().params[0].size, 8u);
  scale(n - 100, Argument::bytes(data.device_address()), 3.0f, n - 100);
  const std::vector<float> out = data.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], i < n - 100 ? 3.0f * values[i] : values[i]) << i;
  EXPECT_EQ(other.read(), std::vector<float>(n, 0.0f));
}

// Host memory for transfers: written and read directly, copied to and from
// device buffers by command buffers; not a kernel argument.
TEST_F(ApiTest, StagingBuffersCarryDataToAndFromDeviceBuffers) {
  const uint32_t n = 1000;
  StagingBuffer staging = device->staging_buffer(n * sizeof(float));
  EXPECT_EQ(staging.size_bytes(), n * sizeof(float));
  std::span<std::byte> host = staging.data();
  ASSERT_EQ(host.size(), n * sizeof(float));
  float* floats = reinterpret_cast<float*>(host.data());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(floats[i], 0.0f) << i;  // zero-filled
  for (uint32_t i = 0; i < n; ++i) floats[i] = float(i);
  Buffer<float> data = device->buffer<float>(n);
  Kernel scale = module->kernel("scale");
  CommandBuffer commands = device->command_buffer();
  commands.copy(staging, data);
  commands.launch(scale, n, data, 2.0f);
  commands.copy(data, staging, (n - 10) * sizeof(float), 0, 10 * sizeof(float));  // a range, at an offset
  commands.submit().wait();
  for (uint32_t i = 0; i < 10; ++i) ASSERT_EQ(floats[i], float(i)) << i;  // not overwritten
  for (uint32_t i = 10; i < n; ++i) ASSERT_EQ(floats[i], 2.0f * float(i - 10)) << i;
  // The host reads agree with data().
  std::vector<std::byte> copy = staging.read_bytes();
  EXPECT_EQ(std::memcmp(copy.data(), host.data(), host.size()), 0);

  Exception argument = expect_exception([&] { scale(n, staging, 2.0f); });
  EXPECT_EQ(argument.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(std::string(argument.what()).find("a StagingBuffer is host memory"), std::string::npos) << argument.what();
  EXPECT_EQ(expect_exception([&] { (void)staging.device_address(); }).kind(), ErrorKind::Unsupported);
  StagingBuffer moved = std::move(staging);
  EXPECT_EQ(expect_exception([&] { (void)staging.data(); }).kind(), ErrorKind::UseAfterMove);
}

}  // namespace
}  // namespace wasmgpu
