// Images and samplers through the public API: created from a Device, passed
// as kernel arguments (their handles), in one-line calls and in command
// buffers with automatic barriers; misuse reported by exceptions.
#include "wasmgpu/image.hpp"

#include <gtest/gtest.h>

#include "api/test_support.h"

namespace wasmgpu {
namespace {

using testing::expect_exception;
using testing::kernel_path;
using testing::ValidatedTest;

class ImageApiTest : public ValidatedTest {
 protected:
  void SetUp() override {
    ValidatedTest::SetUp();
    device.emplace(Device::open());
    module.emplace(device->load_file(kernel_path("images")));
  }
  void TearDown() override {
    module.reset();
    device.reset();
    ValidatedTest::TearDown();
  }
  std::optional<Device> device;
  std::optional<Module> module;
};

std::vector<float> pattern(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float((i * 37) % 101) * 0.125f - 3.0f;
  return v;
}

TEST_F(ImageApiTest, ImagesInOneCommandBufferWithAutoBarriers) {
  const uint32_t w = 9, h = 7;
  Image a = device->image_2d(w, h, ImageFormat::Rgba32F);
  Image b = device->image_2d(w, h, ImageFormat::Rgba32F);
  Image c = device->image_2d(w, h, ImageFormat::Rgba32F);
  EXPECT_EQ(a.size_bytes(), uint64_t(w) * h * 16);
  EXPECT_EQ(c.read<float>(), std::vector<float>(w * h * 4, 0.0f));  // zero-filled
  const std::vector<float> in = pattern(w * h * 4);
  a.write(in);
  Kernel affine = module->kernel("affine");
  ASSERT_EQ(affine.interface().params.size(), 4u);
  EXPECT_EQ(affine.interface().params[0].kind, ParamKind::StorageImage);
  EXPECT_EQ(affine.interface().params[0].name, "src");
  // b = a * 2 + 1, then c = b * 0.5 - 3: the second launch reads what the
  // first wrote, so the command buffer puts a barrier between them.
  CommandBuffer commands = device->command_buffer();
  commands.launch(affine, w * h, a, b, 2.0f, 1.0f);
  commands.launch(affine, w * h, b, c, 0.5f, -3.0f);
  commands.submit().wait();
  const std::vector<float> out = c.read<float>();
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], (in[i] * 2.0f + 1.0f) * 0.5f - 3.0f) << i;
}

TEST_F(ImageApiTest, SamplingWithANearestSamplerAtTexelCentres) {
  const uint32_t w = 5, h = 4;
  Image image = device->image_2d(w, h, ImageFormat::Rgba8, ImageUsage::Storage | ImageUsage::Sampled);
  std::vector<uint8_t> bytes(w * h * 4);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 13);
  image.write(bytes);
  EXPECT_EQ(image.read<uint8_t>(), bytes);
  Sampler nearest = device->sampler(Filter::Nearest);
  Buffer<float> out = device->buffer<float>(w * h * 4);
  module->kernel("sample_centres")(w * h, image, nearest, out);
  const std::vector<float> values = out.read();
  // rgba8 reads as byte / 255 (within the conversion's precision).
  for (size_t i = 0; i < bytes.size(); ++i) EXPECT_NEAR(values[i], bytes[i] / 255.0f, 1e-6f) << i;
}

TEST_F(ImageApiTest, MisuseIsReported) {
  Image image = device->image_2d(4, 1, ImageFormat::R32F);
  Buffer<float> out = device->buffer<float>(4);
  Kernel load_at = module->kernel("load_at");
  load_at(1, image, 3, out);
  EXPECT_EQ(out.read()[0], 0.0f);
  // Coordinates outside the image trap, naming the kernel and the trap.
  Exception trap = expect_exception([&] { load_at(1, image, 4, out); });
  EXPECT_EQ(trap.kind(), ErrorKind::Trap);
  EXPECT_NE(std::string(trap.what()).find("kernel 'load_at' trapped: out of bounds image access"), std::string::npos)
      << trap.what();
  // A sampler where an image is expected, and the reverse.
  Sampler sampler = device->sampler();
  Exception wrong = expect_exception([&] { load_at(1, sampler, 0, out); });
  EXPECT_EQ(wrong.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(std::string(wrong.what()).find("'image'"), std::string::npos) << wrong.what();
  // A moved-from image.
  Image moved = std::move(image);
  Exception gone = expect_exception([&] { load_at(1, image, 0, out); });
  EXPECT_EQ(gone.kind(), ErrorKind::UseAfterMove) << gone.what();
  // A partial write.
  const std::vector<float> three(3, 1.0f);
  Exception small = expect_exception([&] { moved.write(three); });
  EXPECT_EQ(small.kind(), ErrorKind::BufferTooSmall);
  EXPECT_NE(std::string(small.what()).find("Image::write of 12 bytes; the 4x1 r32f image has 16"), std::string::npos)
      << small.what();
  // An image of another device.
  Device other = Device::open();
  Image foreign = other.image_2d(4, 1, ImageFormat::R32F);
  Exception elsewhere = expect_exception([&] { load_at(1, foreign, 0, out); });
  EXPECT_EQ(elsewhere.kind(), ErrorKind::WrongDevice) << elsewhere.what();
  // A recorded image destroyed before submit.
  CommandBuffer commands = device->command_buffer();
  {
    Image temporary = device->image_2d(4, 1, ImageFormat::R32F);
    commands.launch(load_at, 1, temporary, 0, out);
  }
  Exception destroyed = expect_exception([&] { commands.submit(); });
  EXPECT_EQ(destroyed.kind(), ErrorKind::UseAfterMove);
  EXPECT_NE(std::string(destroyed.what()).find("the Image for parameter 'image' was destroyed"), std::string::npos)
      << destroyed.what();
}

}  // namespace
}  // namespace wasmgpu
