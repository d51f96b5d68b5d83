#include "runtime/buffer.h"

#include <gtest/gtest.h>

#include <numeric>

#include "runtime/device_state.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;

void round_trip(Device& device) {
  auto buffer = device.create_buffer(1001);
  ASSERT_TRUE(buffer.ok()) << buffer.error().message;
  EXPECT_EQ(buffer->size(), 1001u);
  ASSERT_TRUE(buffer->wasm_address());
  EXPECT_EQ(*buffer->wasm_address() % abi::kBufferAlignment, 0u);
  EXPECT_NE(buffer->device_address(), 0u);

  std::vector<uint8_t> bytes(1001);
  std::iota(bytes.begin(), bytes.end(), uint8_t(3));
  ASSERT_TRUE(buffer->write(bytes).ok());
  auto back = buffer->read_as<uint8_t>(1001);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, bytes);

  // Partial write and read at odd offsets.
  const uint8_t patch[3] = {0xAA, 0xBB, 0xCC};
  ASSERT_TRUE(buffer->write(patch, 3, 997).ok());
  auto tail = buffer->read_as<uint8_t>(5, 996);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*tail, (std::vector<uint8_t>{bytes[996], 0xAA, 0xBB, 0xCC, bytes[1000]}));

  ASSERT_TRUE(buffer->fill(0x01020304).ok());
  auto words = buffer->read_as<uint32_t>(250);
  ASSERT_TRUE(words.ok());
  for (uint32_t word : *words) ASSERT_EQ(word, 0x01020304u);

  // Out of range.
  auto bad = buffer->read_as<uint8_t>(2, 1000);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("outside the 1001-byte buffer"), std::string::npos);
  EXPECT_FALSE(buffer->write(patch, 3, 1000).ok());
}

TEST_F(VulkanTest, BufferRoundTrip) { round_trip(*device); }

class StagedBufferTest : public VulkanTest {
  DeviceOptions device_options() const override {
    DeviceOptions options;
    options.map_host_visible_buffers = false;
    return options;
  }
};

TEST_F(StagedBufferTest, BufferRoundTripThroughStaging) {
  round_trip(*device);
  auto big = device->create_buffer(100 << 20);  // larger than the staging buffer
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_FALSE(big->host_mapped());
  std::vector<uint32_t> data((100 << 20) / 4);
  std::iota(data.begin(), data.end(), 0u);
  ASSERT_TRUE(big->write(data).ok());
  auto back = big->read_as<uint32_t>(data.size());
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
  EXPECT_LE(device->state().staging.size, uint64_t(64) << 20);
}

TEST_F(VulkanTest, BuffersGetDistinctGuardedWasmAddressesAndFreeThem) {
  std::optional<uint32_t> first_address;
  {
    auto a = device->create_buffer(100);
    auto b = device->create_buffer(70000);
    auto c = device->create_buffer(0);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    first_address = a->wasm_address();
    EXPECT_EQ(*a->wasm_address(), abi::kBufferAddressBase);
    EXPECT_GE(*b->wasm_address(), *a->wasm_address() + 100 + abi::kBufferGuard);
    EXPECT_GE(*c->wasm_address(), *b->wasm_address() + 70000 + abi::kBufferGuard);
    EXPECT_EQ(device->mapped_buffer_count(), 3u);
    // Moving keeps the address.
    Buffer moved = std::move(a).value();
    EXPECT_EQ(moved.wasm_address(), first_address);
    EXPECT_EQ(device->mapped_buffer_count(), 3u);
  }
  EXPECT_EQ(device->mapped_buffer_count(), 0u);
  EXPECT_EQ(device->mapped_address_bytes(), 0u);
  auto again = device->create_buffer(16);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->wasm_address(), first_address);  // reused
}

TEST_F(VulkanTest, TooLargeBufferIsAClearError) {
  const uint64_t limit = device->info().limits.max_memory_allocation_size;
  auto huge = device->create_buffer(limit + 1);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("maxMemoryAllocationSize"), std::string::npos) << huge.error().message;
}

}  // namespace
}  // namespace wasmgpu::runtime
