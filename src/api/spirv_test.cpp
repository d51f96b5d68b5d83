// Foreign SPIR-V through the same Module / Kernel / Argument / CommandBuffer
// API as wasm: the reflect fixtures (GLSL compiled by glslang at build time).
#include <gtest/gtest.h>

#include <cstring>

#include "api/impl.h"
#include "api/test_support.h"

namespace wasmgpu {
namespace {

using testing::ApiTest;
using testing::expect_exception;

std::string fixture(const std::string& name) { return std::string(WASMGPU_SPIRV_FIXTURES_DIR) + "/" + name; }

TEST_F(ApiTest, SpirvKernelsBindByPositionAndName) {
  Module glsl = device->load_file(fixture("saxpy.spv"));
  EXPECT_EQ(glsl.source(), KernelSource::Spirv);
  Kernel saxpy = glsl.kernel("main");
  const KernelInterface& interface = saxpy.interface();
  ASSERT_EQ(interface.params.size(), 4u);
  EXPECT_EQ(interface.params[0].kind, ParamKind::Buffer);
  EXPECT_FALSE(interface.params[0].writable);  // readonly
  EXPECT_TRUE(interface.params[1].writable);
  EXPECT_EQ(interface.params[0].name, "xs");
  EXPECT_EQ(interface.params[1].name, "ys");
  EXPECT_EQ(interface.params[2].name, "n");
  EXPECT_EQ(interface.params[3].name, "a");

  const uint32_t n = 300;  // not a multiple of the workgroup size
  std::vector<float> xs(n), ys(n);
  for (uint32_t i = 0; i < n; ++i) {
    xs[i] = float(i);
    ys[i] = 1.0f - float(i);
  }
  Buffer<float> x = device->upload(xs), y = device->upload(ys);
  saxpy(n, x, y, n, 2.0f);
  std::vector<float> out = y.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * xs[i] + ys[i]) << i;
  saxpy(Launch::invocations(n, 32), arg("ys", y), arg("a", -1.0f), arg("n", n - 100), arg("xs", x));
  const std::vector<float> again = y.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(again[i], i < n - 100 ? out[i] - xs[i] : out[i]) << i;

  Exception type = expect_exception([&] { saxpy(n, x, y, n, 2.0); });
  EXPECT_EQ(type.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(type.what(),
               "kernel 'main', parameter 'a' (argument 4 of 4): expected f32 (float), but double 2 was given");
  Exception count = expect_exception([&] { saxpy(n, x, y); });
  EXPECT_NE(std::string(count.what()).find("kernel 'main' takes 4 argument(s)"), std::string::npos) << count.what();
}

// One command buffer with a wasm launch, a SPIR-V launch that reads its
// result, and a wasm launch that reads the SPIR-V one's; then again with a
// new scalar for the SPIR-V launch (its push constants: recorded anew).
TEST_F(ApiTest, WasmAndSpirvLaunchesShareACommandBuffer) {
  Module glsl = device->load_file(fixture("saxpy.spv"));
  Kernel glsl_saxpy = glsl.kernel("main");
  Kernel scale = module->kernel("scale");
  const uint32_t n = 128;
  std::vector<float> xs(n);
  for (uint32_t i = 0; i < n; ++i) xs[i] = float(i % 17);
  Buffer<float> x = device->upload(xs);
  Buffer<float> y = device->buffer<float>(n);
  CommandBuffer commands = device->command_buffer();
  commands.launch(scale, n, x, 3.0f);                                    // x = 3 xs
  const LaunchId spirv = commands.launch(glsl_saxpy, n, x, y, n, 2.0f);  // y = 2 x
  commands.launch(scale, n, y, 0.5f);                                    // y = x
  commands.submit().wait();
  EXPECT_EQ(detail::Access::commands(commands)->auto_barrier_positions, (std::vector<size_t>{1, 2}));
  std::vector<float> out = y.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 3.0f * xs[i]) << i;
  commands.set_argument(spirv, "a", 4.0f);
  commands.submit().wait();  // x = 9 xs; y = 3 xs + 4 * 9 xs, halved
  out = y.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (3.0f * xs[i] + 36.0f * xs[i]) * 0.5f) << i;
}

// A std140 uniform block given as bytes (Argument::bytes) or as a Buffer, a
// storage block with a header before its runtime array, a fixed 8x2
// workgroup size and a 2-D grid.
TEST_F(ApiTest, SpirvUniformBlocksTakeBytesOrBuffers) {
  Module glsl = device->load_file(fixture("uniform_params.spv"));
  Kernel kernel = glsl.kernel("main");
  struct Params {  // std140: vec4, {uint, uint}, float[2] with a 16-byte stride
    float scale[4];
    uint32_t first, count, pad0[2];
    float bias0, pad1[3];
    float bias1, pad2[3];
  };
  static_assert(sizeof(Params) == 64);
  const Params params{{0.5f, 0, 0, 0}, 10, 100, {0, 0}, 3.0f, {0, 0, 0}, -1.0f, {0, 0, 0}};
  const uint32_t cells = 256;  // a 2x8 grid of 8x2 workgroups: i = y * 16 + x
  for (int as_buffer = 0; as_buffer < 2; ++as_buffer) {
    Buffer<uint32_t> result = device->buffer<uint32_t>(2 + 2 * cells);
    Buffer<Params> uniform = device->upload(std::vector<Params>{params});
    if (as_buffer)
      kernel(Launch::grid({2, 8, 1}), arg("result", result), arg("params", uniform));
    else
      kernel(Launch::grid({2, 8, 1}), arg("result", result), arg("params", Argument::bytes(params)));
    const std::vector<uint32_t> out = result.read();
    EXPECT_EQ(out[0], 100u);  // written
    EXPECT_EQ(out[1], 1u);    // MODE's default
    for (uint32_t i = 0; i < cells; ++i) {
      float v[2];
      std::memcpy(v, &out[2 + 2 * i], 8);
      const bool in = i >= 10 && i < 110;
      ASSERT_EQ(v[0], in ? float(i) * 0.5f + 3.0f : 0.0f) << i;
      ASSERT_EQ(v[1], in ? float(i) * 2.5f - 1.0f : 0.0f) << i;
    }
  }
  struct Small {
    float x;
  };
  Buffer<uint32_t> result = device->buffer<uint32_t>(8);
  Exception size = expect_exception(
      [&] { kernel(Launch::grid({1, 1, 1}), arg("result", result), arg("params", Argument::bytes(Small{1.0f}))); });
  EXPECT_EQ(size.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(std::string(size.what())
                .find("parameter 'params' (argument 2 of 2): expected a uniform Buffer or "
                      "Argument::bytes of 64 bytes, but 4 bytes was given"),
            std::string::npos)
      << size.what();
}

}  // namespace
}  // namespace wasmgpu
