// Images and samplers on a device (lavapipe in CI), under validation: round
// trips through staging, wasm kernels reading, writing and sampling images
// (compared with the same float operations on the CPU), and the traps that
// keep bad handles and coordinates away from the GPU.
#include "runtime/image.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/device_state.h"
#include "runtime/module.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;

// C with include/wasmgpu.h -> wasm (clang-19, wasm-ld-19 called directly).
std::vector<uint8_t> compile_c(const std::string& source) {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path dir =
      fs::temp_directory_path() / ("wasmgpu-image-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  std::ofstream(dir / "k.c") << source;
  const std::string command = "cd '" + dir.string() + "' && clang-19 --target=wasm32 -nostdlib -ffreestanding -O2 -I" +
                              WASMGPU_INCLUDE_DIR + " -c k.c -o k.o && wasm-ld-19 --no-entry k.o -o k.wasm 2>&1";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "cannot compile:\n" << source;
    return {};
  }
  std::ifstream file(dir / "k.wasm", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return bytes;
}

template <class T>
std::vector<T> read_image(const Image& image) {
  std::vector<T> out(image.size_bytes() / sizeof(T));
  Status status = image.read(out.data(), image.size_bytes());
  EXPECT_TRUE(status.ok()) << status.error().message;
  return out;
}

TEST_F(VulkanTest, ImagesRoundTripThroughStaging) {
  DeviceState& state = device->state();
  // rgba8 2D: new images read as zeros; written bytes come back unchanged.
  auto rgba8 = Image::create(state, {.width = 5, .height = 3, .format = ImageFormat::Rgba8Unorm});
  ASSERT_TRUE(rgba8.ok()) << rgba8.error().message;
  EXPECT_EQ(rgba8->size_bytes(), 5u * 3 * 4);
  EXPECT_EQ(read_image<uint8_t>(*rgba8), std::vector<uint8_t>(60, 0));
  std::vector<uint8_t> bytes(60);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 37 + 5);
  ASSERT_TRUE(rgba8->write(bytes.data(), bytes.size()).ok());
  EXPECT_EQ(read_image<uint8_t>(*rgba8), bytes);
  // rgba32f 3D, sampled and storage.
  auto volume = Image::create(state, {.width = 3,
                                      .height = 2,
                                      .depth = 4,
                                      .three_d = true,
                                      .format = ImageFormat::Rgba32Float,
                                      .storage = true,
                                      .sampled = true});
  ASSERT_TRUE(volume.ok()) << volume.error().message;
  std::vector<float> texels(3 * 2 * 4 * 4);
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = float(i) * 0.5f - 7.0f;
  ASSERT_TRUE(volume->write(texels.data(), texels.size() * 4).ok());
  EXPECT_EQ(read_image<float>(*volume), texels);
  // r32f, sampled only; handles differ and are never 0.
  auto r32f = Image::create(
      state, {.width = 7, .height = 1, .format = ImageFormat::R32Float, .storage = false, .sampled = true});
  ASSERT_TRUE(r32f.ok()) << r32f.error().message;
  std::vector<float> line{1, 2, 3, 4, 5, 6, 7};
  ASSERT_TRUE(r32f->write(line.data(), 28).ok());
  EXPECT_EQ(read_image<float>(*r32f), line);
  EXPECT_NE(rgba8->handle(), 0u);
  EXPECT_NE(rgba8->handle(), volume->handle());
  EXPECT_NE(volume->handle(), r32f->handle());
  // A partial write is refused, naming both sizes.
  Status partial = r32f->write(line.data(), 8);
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.error().message,
            "Image::write of 8 bytes to a 7x1 r32f image of 28 bytes (the whole image is written)");
  auto neither = Image::create(state, {.width = 2, .height = 2, .storage = false, .sampled = false});
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.error().message.find("storage image, a sampled image or both"), std::string::npos);
}

// dst(x, y) = 0.25 * src(x-1, y) + 0.5 * src(x, y) + 0.25 * src(x+1, y), edges
// clamped, per channel; plus the image size in alpha. The CPU does the same
// float operations in the same order, so the results match exactly.
const char* kBlurRow = R"(
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(blur_row, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(src), WASMGPU_IMAGE(dst)) {
  int w = wasmgpu_image_size(src, 0), h = wasmgpu_image_size(src, 1);
  int x = i % w, y = i / w;
  if (y >= h) return;
  float l[4], c[4], r[4];
  wasmgpu_image_load_2d(l, src, x > 0 ? x - 1 : 0, y);
  wasmgpu_image_load_2d(c, src, x, y);
  wasmgpu_image_load_2d(r, src, x < w - 1 ? x + 1 : w - 1, y);
  float o[4];
  for (int k = 0; k < 3; ++k) o[k] = 0.25f * l[k] + 0.5f * c[k] + 0.25f * r[k];
  wasmgpu_image_store_2d(dst, x, y, o[0], o[1], o[2], (float)(w * 100 + h));
}
)";

TEST_F(VulkanTest, WasmKernelReadsOneImageAndWritesAnother) {
  auto module = Module::load(*device, compile_c(kBlurRow));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  DeviceState& state = device->state();
  const uint32_t w = 13, h = 5;
  auto src = Image::create(state, {.width = w, .height = h, .format = ImageFormat::Rgba32Float});
  auto dst = Image::create(state, {.width = w, .height = h, .format = ImageFormat::Rgba32Float});
  ASSERT_TRUE(src.ok() && dst.ok());
  std::vector<float> in(w * h * 4);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float((i * 7919) % 1000) / 7.0f;
  ASSERT_TRUE(src->write(in.data(), in.size() * 4).ok());
  Status launched = module->launch("blur_row", w * h, 0, {*src, *dst});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<float> out = read_image<float>(*dst);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : w - 1;
      for (uint32_t k = 0; k < 3; ++k) {
        float expected =
            0.25f * in[(y * w + xl) * 4 + k] + 0.5f * in[(y * w + x) * 4 + k] + 0.25f * in[(y * w + xr) * 4 + k];
        ASSERT_EQ(out[(y * w + x) * 4 + k], expected) << x << "," << y << " channel " << k;
      }
      ASSERT_EQ(out[(y * w + x) * 4 + 3], float(w * 100 + h));
    }
}

// rgba8 stores convert to unorm bytes; 3D images load and store by (x, y, z).
const char* kFormats = R"(
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(to_bytes, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(dst)) {
  wasmgpu_image_store_2d(dst, i, 0, i / 4.0f, 1.0f - i / 4.0f, 2.0f, -1.0f);
}
WASMGPU_DEFINE_KERNEL(shift_z, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(volume), WASMGPU_PTR(float, sizes)) {
  int w = wasmgpu_image_size(volume, 0), h = wasmgpu_image_size(volume, 1), d = wasmgpu_image_size(volume, 2);
  int x = i % w, y = (i / w) % h, z = i / (w * h);
  float t[4];
  wasmgpu_image_load_3d(t, volume, x, y, z);
  wasmgpu_barrier();
  wasmgpu_image_store_3d(volume, x, y, d - 1 - z, t[0] + 1.0f, t[1], t[2], t[3]);
  if (i == 0) { sizes[0] = w; sizes[1] = h; sizes[2] = d; sizes[3] = wasmgpu_image_size(volume, 3); }
}
)";

TEST_F(VulkanTest, WasmKernelsWriteRgba8AndUse3DImages) {
  auto module = Module::load(*device, compile_c(kFormats));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  DeviceState& state = device->state();
  auto bytes = Image::create(state, {.width = 5, .height = 1, .format = ImageFormat::Rgba8Unorm});
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(module->launch("to_bytes", 5, 0, {*bytes}).ok());
  std::vector<uint8_t> expected;
  for (int i = 0; i < 5; ++i) {
    auto unorm = [](float v) { return uint8_t(std::lround(std::min(std::max(v, 0.0f), 1.0f) * 255.0f)); };
    expected.insert(expected.end(), {unorm(i / 4.0f), unorm(1.0f - i / 4.0f), 255, 0});
  }
  EXPECT_EQ(read_image<uint8_t>(*bytes), expected);

  // 2x2x2 texels, one workgroup of 8: every load happens before every store.
  auto volume =
      Image::create(state, {.width = 2, .height = 2, .depth = 2, .three_d = true, .format = ImageFormat::Rgba32Float});
  ASSERT_TRUE(volume.ok());
  std::vector<float> texels(32);
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = float(i);
  ASSERT_TRUE(volume->write(texels.data(), 128).ok());
  auto sizes = device->create_buffer(16);
  ASSERT_TRUE(sizes.ok());
  Status launched = module->launch("shift_z", 8, 8, {*volume, *sizes});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<float> out = read_image<float>(*volume);
  for (uint32_t z = 0; z < 2; ++z)
    for (uint32_t t = 0; t < 4; ++t)
      for (uint32_t c = 0; c < 4; ++c) {
        float source = texels[((1 - z) * 4 + t) * 4 + c];
        EXPECT_EQ(out[(z * 4 + t) * 4 + c], c == 0 ? source + 1.0f : source) << z << " " << t << " " << c;
      }
  auto read_sizes = sizes->read_as<float>(4);
  ASSERT_TRUE(read_sizes.ok());
  EXPECT_EQ(*read_sizes, (std::vector<float>{2, 2, 2, 1}));
}

// Sampling: a nearest sampler at texel centres returns the texels exactly;
// past the right edge, clamp returns the last column and repeat the first;
// a linear sampler halfway between two texels returns their mean.
const char* kSample = R"(
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(sample, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(image), WASMGPU_SAMPLER(s),
                      WASMGPU_VALUE(float, u_offset), WASMGPU_VALUE(float, v_offset), WASMGPU_PTR(float, out)) {
  int w = wasmgpu_image_size(image, 0), h = wasmgpu_image_size(image, 1);
  int x = i % w, y = i / w;
  wasmgpu_image_sample_2d(out + 4 * i, image, s, (x + 0.5f) / w + u_offset, (y + 0.5f) / h + v_offset, 0.0f);
}
)";

TEST_F(VulkanTest, SamplingAtTexelCentres) {
  auto module = Module::load(*device, compile_c(kSample));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  DeviceState& state = device->state();
  const uint32_t w = 4, h = 3;
  auto image = Image::create(
      state, {.width = w, .height = h, .format = ImageFormat::Rgba32Float, .storage = false, .sampled = true});
  ASSERT_TRUE(image.ok()) << image.error().message;
  std::vector<float> texels(w * h * 4);
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = float(i * i % 97) * 0.125f;
  ASSERT_TRUE(image->write(texels.data(), texels.size() * 4).ok());
  auto nearest = Sampler::create(state, {Filter::Nearest, AddressMode::ClampToEdge});
  auto repeat = Sampler::create(state, {Filter::Nearest, AddressMode::Repeat});
  auto linear = Sampler::create(state, {Filter::Linear, AddressMode::ClampToEdge});
  ASSERT_TRUE(nearest.ok() && repeat.ok() && linear.ok()) << nearest.error().message;
  auto out = device->create_buffer(w * h * 16);
  ASSERT_TRUE(out.ok());
  auto texel = [&](uint32_t x, uint32_t y, uint32_t c) { return texels[(y * w + x) * 4 + c]; };
  auto run = [&](const Sampler& sampler, float u_offset) {
    Status launched = module->launch("sample", w * h, 0, {*image, sampler, u_offset, 0.0f, *out});
    EXPECT_TRUE(launched.ok()) << launched.error().message;
    auto values = out->read_as<float>(w * h * 4);
    EXPECT_TRUE(values.ok());
    return *values;
  };
  std::vector<float> centres = run(*nearest, 0.0f);
  EXPECT_EQ(centres, texels);
  // One image width to the right: clamp gives the last column, repeat the same texel.
  std::vector<float> clamped = run(*nearest, 1.0f), repeated = run(*repeat, 1.0f);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (uint32_t c = 0; c < 4; ++c) {
        EXPECT_EQ(clamped[(y * w + x) * 4 + c], texel(w - 1, y, c));
        EXPECT_EQ(repeated[(y * w + x) * 4 + c], texel(x, y, c));
      }
  // Half a texel right: linear filtering blends x and x + 1 equally (the
  // device's filter precision, about 1/256 of the difference, bounds the error).
  std::vector<float> blended = run(*linear, 0.5f / w);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x + 1 < w; ++x)
      for (uint32_t c = 0; c < 4; ++c) {
        float a = texel(x, y, c), b = texel(x + 1, y, c);
        EXPECT_NEAR(blended[(y * w + x) * 4 + c], 0.5f * (a + b), std::abs(b - a) / 128 + 1e-6f);
      }
}

// Handles that name nothing usable trap without touching a descriptor, and
// so do coordinates outside the image.
const char* kMisuse = R"(
#include <wasmgpu.h>
WASMGPU_DEFINE_KERNEL(load, WASMGPU_VALUE(int, i), WASMGPU_VALUE(int, handle), WASMGPU_VALUE(int, x),
                      WASMGPU_PTR(float, out)) {
  wasmgpu_image_load_2d(out + 4 * i, handle, x, 0);
}
WASMGPU_DEFINE_KERNEL(sample, WASMGPU_VALUE(int, i), WASMGPU_IMAGE(image), WASMGPU_VALUE(int, sampler),
                      WASMGPU_PTR(float, out)) {
  wasmgpu_image_sample_2d(out + 4 * i, image, sampler, 0.5f, 0.5f, 0.0f);
}
)";

TEST_F(VulkanTest, BadHandlesAndCoordinatesTrap) {
  auto module = Module::load(*device, compile_c(kMisuse));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  DeviceState& state = device->state();
  auto image = Image::create(state, {.width = 4, .height = 1, .format = ImageFormat::Rgba32Float, .sampled = true});
  auto sampler = Sampler::create(state, {});
  auto out = device->create_buffer(64);
  ASSERT_TRUE(image.ok() && sampler.ok() && out.ok());
  const int good = int(image->handle());
  auto load = [&](int handle, int x) { return module->launch("load", 1, 0, {handle, x, *out}); };
  auto message = [](const Status& s) { return s.ok() ? std::string("(ran)") : s.error().message; };
  EXPECT_EQ(message(load(good, 3)), "(ran)");
  const std::string invalid = "kernel 'load' trapped: invalid image or sampler handle at invocation 0";
  EXPECT_EQ(message(load(0, 0)).find(invalid), 0u) << message(load(0, 0));
  EXPECT_EQ(message(load(100000, 0)).find(invalid), 0u);
  EXPECT_EQ(message(load(-1, 0)).find(invalid), 0u);
  EXPECT_EQ(message(load(int(sampler->handle()), 0)).find(invalid), 0u);  // a sampler is no image
  const std::string outside = "kernel 'load' trapped: out of bounds image access at invocation 0";
  EXPECT_EQ(message(load(good, 4)).find(outside), 0u) << message(load(good, 4));
  EXPECT_EQ(message(load(good, -1)).find(outside), 0u);
  // A sampled-only use of a storage-only image, and an image as a sampler.
  auto storage_only = Image::create(state, {.width = 2, .height = 2, .format = ImageFormat::R32Float});
  ASSERT_TRUE(storage_only.ok());
  auto sample = [&](const Image& img, int s) { return module->launch("sample", 1, 0, {img, s, *out}); };
  EXPECT_EQ(message(sample(*image, int(sampler->handle()))), "(ran)");
  EXPECT_EQ(message(sample(*storage_only, int(sampler->handle()))).find("kernel 'sample' trapped: invalid image"), 0u);
  EXPECT_EQ(message(sample(*image, good)).find("kernel 'sample' trapped: invalid image"), 0u);
  // A destroyed image's handle traps.
  image.value() = std::move(storage_only).value();
  EXPECT_EQ(message(load(good, 0)).find(invalid), 0u);
  // Images passed where the kernel takes a float are refused before launch.
  Status wrong = module->launch("load", 1, 0, {*image, 0, *out});
  EXPECT_EQ(message(wrong), "(ran)");  // an Image into an i32 parameter is its handle
  auto f32_kernel = Module::load(*device, compile_c(R"(
#include <wasmgpu.h>
WASMGPU_KERNEL(k) void k(int i, float f) {}
)"));
  ASSERT_TRUE(f32_kernel.ok());
  Status refused = f32_kernel->launch("k", 1, 0, {*image});
  EXPECT_EQ(message(refused),
            "kernel 'k': argument 1 (parameter 1 of the wasm function) is f32, but an Image was given (images "
            "and samplers are passed as i32 handles)");
}

// A device without descriptor indexing, made by hiding the feature.
class DeviceWithoutImages : public VulkanTest {
 protected:
  void SetUp() override {
    setenv("WASMGPU_HIDE_FEATURES", "images", 1);
    VulkanTest::SetUp();
    unsetenv("WASMGPU_HIDE_FEATURES");
  }
};

TEST_F(DeviceWithoutImages, ImagesNeedDescriptorIndexing) {
  const std::string lacks = "Vulkan device '" + device->info().name + "' lacks descriptor indexing needed for images";
  auto image = Image::create(device->state(), {});
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.error().message.find(lacks), 0u) << image.error().message;
  auto sampler = Sampler::create(device->state(), {});
  ASSERT_FALSE(sampler.ok());
  EXPECT_EQ(sampler.error().message.find(lacks), 0u);
  auto module = Module::load(*device, compile_c(kSample));
  ASSERT_TRUE(module.ok());
  auto kernel = module->kernel("sample");
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.error().message.find("kernel 'sample' uses images, but " + lacks), std::string::npos)
      << kernel.error().message;
  // Kernels without images still run.
  auto plain = Module::load(*device, compile_c(R"(
#include <wasmgpu.h>
WASMGPU_KERNEL(k) void k(int i, int *out) { out[i] = i * 3; }
)"));
  ASSERT_TRUE(plain.ok());
  auto out = device->create_buffer(16);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(plain->launch("k", 4, 0, {*out}).ok());
  EXPECT_EQ(*out->read_as<int>(4), (std::vector<int>{0, 3, 6, 9}));
}

}  // namespace
}  // namespace wasmgpu::runtime
