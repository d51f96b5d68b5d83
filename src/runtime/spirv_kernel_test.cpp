// Foreign SPIR-V kernels on the device: GLSL and HLSL compiled by glslang and
// the Slang- and rust-gpu-style assembly of src/reflect/fixtures, bound by
// position and by name, each result compared with the same computation on
// the CPU; and every misuse SpirvKernel checks, by its message.
#include "runtime/spirv_kernel.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>

#include "reflect/spirv_reflect.h"
#include "runtime/device_state.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;

std::vector<uint32_t> fixture(const std::string& name) {
  std::ifstream file(std::string(WASMGPU_SPIRV_FIXTURES_DIR) + "/" + name, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto words = reflect::spirv_words(bytes);
  EXPECT_TRUE(words.ok()) << name;
  return words.ok() ? *words : std::vector<uint32_t>{};
}

class SpirvKernelTest : public VulkanTest {
 protected:
  SpirvKernel load(const std::string& file, const std::string& entry = {}) {
    auto kernel = SpirvKernel::create(device->state(), fixture(file), entry);
    if (!kernel.ok()) {
      ADD_FAILURE() << file << ": " << kernel.error().to_string();
      std::abort();
    }
    return std::move(kernel).value();
  }
  Buffer upload(const void* data, size_t bytes) {
    auto buffer = device->create_buffer(bytes);
    EXPECT_TRUE(buffer.ok());
    EXPECT_TRUE(buffer->write(data, bytes).ok());
    return std::move(buffer).value();
  }
  template <class T>
  Buffer upload(const std::vector<T>& values) {
    return upload(values.data(), values.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> read(const Buffer& buffer, size_t count, uint64_t offset = 0) {
    auto values = buffer.read_as<T>(count, offset);
    EXPECT_TRUE(values.ok());
    return values.ok() ? *values : std::vector<T>{};
  }
};

std::string error_of(const Status& status) { return status.ok() ? "(succeeded)" : status.error().message; }

TEST_F(SpirvKernelTest, GlslSaxpyByPositionAndByNameWithSpecialisedWorkgroupSize) {
  SpirvKernel saxpy = load("saxpy.spv");
  const uint32_t n = 1000;
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = float(i) * 0.5f;
    y[i] = float(i % 7);
  }
  Buffer xs = upload(x), ys = upload(y);
  // local_size_x_id: the launch picks 64 (n = 1000 needs 16 groups).
  SpirvLaunch launch{{16, 1, 1}, std::array<uint32_t, 3>{64, 1, 1}, {}};
  const SpirvArg args[] = {SpirvArg::buffer(xs), SpirvArg::buffer(ys), SpirvArg::of(n), SpirvArg::of(2.0f)};
  ASSERT_TRUE(saxpy.launch(launch, args).ok()) << error_of(saxpy.launch(launch, args));
  std::vector<float> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = 2.0f * x[i] + y[i];
  EXPECT_EQ(read<float>(ys, n), expected);

  // By name, in another order, with a different workgroup size; an int
  // literal for the u32 `n` converts because it fits.
  launch = {{4, 1, 1}, std::array<uint32_t, 3>{256, 1, 1}, {}};
  const SpirvArg named[] = {SpirvArg::of(-1.0f).named("a"), SpirvArg::of(int32_t(n)).named("n"),
                            SpirvArg::buffer(ys).named("ys"), SpirvArg::buffer(xs).named("xs")};
  ASSERT_TRUE(saxpy.launch(launch, named).ok()) << error_of(saxpy.launch(launch, named));
  for (uint32_t i = 0; i < n; ++i) expected[i] = -1.0f * x[i] + expected[i];
  EXPECT_EQ(read<float>(ys, n), expected);
  EXPECT_EQ(saxpy.default_workgroup_size(), (std::array<uint32_t, 3>{kDefaultWorkgroupSize, 1, 1}));
}

TEST_F(SpirvKernelTest, RecordsIntoTheCallersCommandBuffer) {
  SpirvKernel saxpy = load("saxpy.spv");
  const uint32_t n = 100;
  std::vector<float> x(n), y(n, 1.0f);
  std::iota(x.begin(), x.end(), 0.0f);
  Buffer xs = upload(x), ys = upload(y);
  DeviceState& d = device->state();
  auto cmd = d.begin();
  ASSERT_TRUE(cmd.ok());
  const SpirvArg args[] = {SpirvArg::buffer(xs), SpirvArg::buffer(ys), SpirvArg::of(n), SpirvArg::of(3.0f)};
  SpirvLaunch launch{{2, 1, 1}, std::array<uint32_t, 3>{64, 1, 1}, {}};
  memory_barrier(d, *cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  auto first = saxpy.record(*cmd, launch, args);
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  memory_barrier(d, *cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  auto second = saxpy.record(*cmd, launch, args);
  ASSERT_TRUE(second.ok()) << second.error().to_string();
  memory_barrier(d, *cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  ASSERT_TRUE(d.submit_and_wait("two saxpy dispatches").ok());
  std::vector<float> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = 3.0f * x[i] + (3.0f * x[i] + y[i]);
  EXPECT_EQ(read<float>(ys, n), expected);
}

// Params of uniform_params.comp in std140.
struct Params {
  float scale[4];
  uint32_t first, count;
  uint32_t pad0[2];
  float bias0, pad1[3];
  float bias1, pad2[3];
};
static_assert(sizeof(Params) == 64);

TEST_F(SpirvKernelTest, UniformValueUniformBufferAndSpecConstants) {
  SpirvKernel kernel = load("uniform_params.spv");
  Params params{};
  params.scale[0] = 0.5f;
  params.first = 5;
  params.count = 100;
  params.bias0 = 1.0f;
  params.bias1 = -2.0f;
  const uint32_t slots = 128;
  std::vector<uint32_t> zeros(2 + 2 * slots, 0);
  auto check = [&](const Buffer& out, int32_t mode, float factor) {
    std::vector<uint32_t> header = read<uint32_t>(out, 2);
    EXPECT_EQ(header[0], params.count);
    EXPECT_EQ(header[1], uint32_t(mode));
    std::vector<float> values = read<float>(out, 2 * slots, 8);
    for (uint32_t i = 0; i < slots; ++i) {
      const bool inside = i >= params.first && i < params.first + params.count;
      EXPECT_EQ(values[2 * i], inside ? float(i) * 0.5f + 1.0f : 0.0f) << i;
      EXPECT_EQ(values[2 * i + 1], inside ? float(i) * factor - 2.0f : 0.0f) << i;
    }
  };
  // 8x2 workgroups, 2x4 of them: 16 x 8 invocations, i = y * 16 + x.
  Buffer out = upload(zeros);
  SpirvLaunch launch{{2, 4, 1}, std::nullopt, {{3, 7}, {5, 0x3f000000 /* 0.5f */}}};
  const SpirvArg args[] = {SpirvArg::buffer(out), SpirvArg::value(params)};
  ASSERT_TRUE(kernel.launch(launch, args).ok()) << error_of(kernel.launch(launch, args));
  check(out, 7, 0.5f);

  // The uniform block from a Buffer, spec constants at their defaults.
  Buffer out2 = upload(zeros);
  Buffer uniforms = upload(&params, sizeof params);
  launch.spec_constants.clear();
  const SpirvArg args2[] = {SpirvArg::buffer(out2), SpirvArg::buffer(uniforms)};
  ASSERT_TRUE(kernel.launch(launch, args2).ok()) << error_of(kernel.launch(launch, args2));
  check(out2, 1, 2.5f);
}

TEST_F(SpirvKernelTest, HlslStructuredBuffersConstantBufferAndPushConstantsByName) {
  SpirvKernel kernel = load("scale.hlsl.spv");
  const uint32_t n = 50, stride = 2;
  std::vector<float> input(n * stride);
  for (size_t i = 0; i < input.size(); ++i) input[i] = float(i) - 20.0f;
  Buffer in = upload(input), out = upload(std::vector<float>(n, 0.0f));
  struct {
    float scale;
    uint32_t stride;
  } cb{4.0f, stride};
  const SpirvArg args[] = {SpirvArg::buffer(out).named("output"), SpirvArg::buffer(in).named("input"),
                           SpirvArg::value(cb).named("Params"), SpirvArg::of(n).named("n"),
                           SpirvArg::of(0.25f).named("offset")};
  SpirvLaunch launch{{2, 1, 1}, std::nullopt, {}};
  ASSERT_TRUE(kernel.launch(launch, args).ok()) << error_of(kernel.launch(launch, args));
  std::vector<float> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = input[i * stride] * 4.0f + 0.25f;
  EXPECT_EQ(read<float>(out, n), expected);
}

TEST_F(SpirvKernelTest, GlslSharedMemoryReduction) {
  SpirvKernel kernel = load("workgroup_sum.spv");
  const uint32_t groups = 4;
  std::vector<uint32_t> values(64 * groups);
  for (size_t i = 0; i < values.size(); ++i) values[i] = uint32_t(i * i % 1000);
  Buffer in = upload(values), sums = upload(std::vector<uint32_t>(groups, 0));
  const SpirvArg args[] = {SpirvArg::buffer(in), SpirvArg::buffer(sums)};
  ASSERT_TRUE(kernel.launch({{groups, 1, 1}, std::nullopt, {}}, args).ok());
  std::vector<uint32_t> expected(groups, 0);
  for (size_t i = 0; i < values.size(); ++i) expected[i / 64] += values[i];
  EXPECT_EQ(read<uint32_t>(sums, groups), expected);
}

TEST_F(SpirvKernelTest, SlangStyleEntryPointParamsAndGlobalParams) {
  SpirvKernel kernel = load("slang_style.spv");
  const uint32_t count = 70;
  std::vector<float> input(80);
  for (size_t i = 0; i < input.size(); ++i) input[i] = float(i) * 0.25f;
  Buffer in = upload(input), out = upload(std::vector<float>(80, -1.0f));
  const float global[2] = {2.0f, 1.0f};  // scale, offset
  const SpirvArg args[] = {SpirvArg::bytes(global, sizeof global).named("globalParams"),
                           SpirvArg::buffer(in).named("input"), SpirvArg::buffer(out).named("output"),
                           SpirvArg::of(count).named("count"), SpirvArg::of(0.5f).named("bias")};
  ASSERT_TRUE(kernel.launch({{2, 1, 1}, std::nullopt, {}}, args).ok())
      << error_of(kernel.launch({{2, 1, 1}, std::nullopt, {}}, args));
  std::vector<float> expected(80, -1.0f);
  for (uint32_t i = 0; i < count; ++i) expected[i] = input[i] * 2.0f + 1.0f + 0.5f;
  EXPECT_EQ(read<float>(out, 80), expected);
}

TEST_F(SpirvKernelTest, RustGpuStyleEntryPointsOfOneModuleAndASpecConstant) {
  SpirvKernel main_cs = load("rust_gpu_style.spv", "main_cs");
  SpirvKernel add_cs = load("rust_gpu_style.spv", "add_cs");
  const uint32_t n = 90;
  std::vector<float> input(n), extra(n);
  for (uint32_t i = 0; i < n; ++i) {
    input[i] = float(i);
    extra[i] = float(n - i);
  }
  Buffer in = upload(input), ex = upload(extra), out = upload(std::vector<float>(n, 0.0f));
  const SpirvArg first[] = {SpirvArg::buffer(in), SpirvArg::buffer(out), SpirvArg::of(n), SpirvArg::of(1.5f)};
  ASSERT_TRUE(main_cs.launch({{2, 1, 1}, std::nullopt, {}}, first).ok());
  const SpirvArg second[] = {SpirvArg::buffer(out).named("output"), SpirvArg::buffer(ex).named("set0_binding2"),
                             SpirvArg::of(n).named("n"), SpirvArg::of(0.0f).named("scale")};
  ASSERT_TRUE(add_cs.launch({{3, 1, 1}, std::nullopt, {{7, 3}}}, second).ok())
      << error_of(add_cs.launch({{3, 1, 1}, std::nullopt, {{7, 3}}}, second));
  std::vector<float> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = input[i] * 1.5f + extra[i] * 3.0f;
  EXPECT_EQ(read<float>(out, n), expected);

  auto ambiguous = SpirvKernel::create(device->state(), fixture("rust_gpu_style.spv"));
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.error().message, "the SPIR-V module has 2 compute entry points ('main_cs', 'add_cs'); name one");
  auto missing = SpirvKernel::create(device->state(), fixture("rust_gpu_style.spv"), "main");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "the SPIR-V module has no compute entry point 'main' (it has 'main_cs', 'add_cs')");
}

TEST_F(SpirvKernelTest, MisuseIsAnErrorNamingTheParameter) {
  SpirvKernel saxpy = load("saxpy.spv");
  SpirvKernel uniforms = load("uniform_params.spv");
  Buffer small = upload(std::vector<uint32_t>{0});  // 4 bytes
  Buffer data = upload(std::vector<float>(64, 0.0f));
  auto error = [](SpirvKernel& k, const SpirvLaunch& launch, std::initializer_list<SpirvArg> args) {
    return error_of(k.launch(launch, std::span<const SpirvArg>(args.begin(), args.size())));
  };
  const SpirvLaunch one{{1, 1, 1}, std::nullopt, {}};
  EXPECT_EQ(error(saxpy, one, {SpirvArg::buffer(data)}),
            "kernel 'main' takes 4 arguments (xs: buffer, ys: buffer, n: u32, a: f32), given 1");
  EXPECT_EQ(error(saxpy, one, {SpirvArg::buffer(data), SpirvArg::buffer(data), SpirvArg::of(1.0f), SpirvArg::of(1.0f)}),
            "kernel 'main': argument 2 for push constant 'n' (u32 at offset 0): expects a u32 scalar, given f32 scalar "
            "1.000000");
  EXPECT_EQ(error(saxpy, one, {SpirvArg::buffer(data), SpirvArg::buffer(data), SpirvArg::of(-3), SpirvArg::of(1.0f)}),
            "kernel 'main': argument 2 for push constant 'n' (u32 at offset 0): the value -3 does not fit in u32");
  EXPECT_EQ(error(saxpy, one, {SpirvArg::of(1u), SpirvArg::buffer(data), SpirvArg::of(1u), SpirvArg::of(1.0f)}),
            "kernel 'main': argument 0 for buffer 'xs' (set 0, binding 0): expects a buffer, given u32 scalar 1");
  EXPECT_EQ(error(saxpy, one, {SpirvArg::buffer(data).named("xs"), SpirvArg::buffer(data)}),
            "kernel 'main': give every argument by name or none (1 of 2 are named)");
  EXPECT_EQ(error(saxpy, one, {SpirvArg::buffer(data).named("x")}),
            "kernel 'main' has no parameter 'x' (it has xs: buffer, ys: buffer, n: u32, a: f32)");
  EXPECT_EQ(error(saxpy, one, {SpirvArg::buffer(data).named("xs"), SpirvArg::buffer(data).named("xs")}),
            "kernel 'main': parameter 'xs' is given twice");
  EXPECT_EQ(
      error(saxpy, one,
            {SpirvArg::buffer(data).named("xs"), SpirvArg::buffer(data).named("ys"), SpirvArg::of(1u).named("n")}),
      "kernel 'main': no argument for parameter 3 (push constant 'a' (f32 at offset 4))");
  EXPECT_EQ(error(saxpy, {{0, 1, 1}, std::nullopt, {}},
                  {SpirvArg::buffer(data), SpirvArg::buffer(data), SpirvArg::of(1u), SpirvArg::of(1.0f)}),
            "kernel 'main': the workgroup count in x must be at least 1");
  // The block of uniform_params' output has an 8-byte header before values[].
  Params params{};
  EXPECT_EQ(
      error(uniforms, one, {SpirvArg::buffer(small), SpirvArg::value(params)}),
      "kernel 'main': argument 0 for buffer 'result' (set 0, binding 2): the buffer is 4 bytes, smaller than the 8 "
      "bytes of block 'Out'");
  EXPECT_EQ(error(uniforms, one, {SpirvArg::buffer(data), SpirvArg::bytes(&params, 12)}),
            "kernel 'main': argument 1 for uniform buffer 'params' (set 1, binding 0): expects a value of 64 bytes "
            "(Params), given 12 bytes");
  EXPECT_EQ(error(uniforms, {{1, 1, 1}, std::array<uint32_t, 3>{16, 1, 1}, {}},
                  {SpirvArg::buffer(data), SpirvArg::value(params)}),
            "kernel 'main': the launch asks for workgroups of 16x1x1, but the shader fixes dimension x at 8 (declared "
            "size 8x2x1)");
  EXPECT_EQ(error(uniforms, {{1, 1, 1}, std::nullopt, {{4, 1}}}, {SpirvArg::buffer(data), SpirvArg::value(params)}),
            "kernel 'main' has no specialization constant with SpecId 4");
  EXPECT_EQ(error(saxpy, {{1, 1, 1}, std::nullopt, {{0, 32}}},
                  {SpirvArg::buffer(data), SpirvArg::buffer(data), SpirvArg::of(1u), SpirvArg::of(1.0f)}),
            "kernel 'main': specialization constant 0 is part of the workgroup size; give the size through the launch");
  // Nothing ran: the data buffer is still zero.
  EXPECT_EQ(read<float>(data, 64), std::vector<float>(64, 0.0f));
}

}  // namespace
}  // namespace wasmgpu::runtime
