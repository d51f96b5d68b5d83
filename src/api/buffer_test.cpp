// Buffers through the public API: typed host data, ranges, misuse.
#include "wasmgpu/buffer.hpp"

#include <gtest/gtest.h>

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
