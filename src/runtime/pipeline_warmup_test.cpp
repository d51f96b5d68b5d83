// Pipeline warm-ups (pipeline_warmup.h): a launch's timeout counts the
// kernel's execution, the driver's compile of its pipeline has its own bound,
// and each error says which one ran out. The fixture turns warm-ups on for
// every driver (WASMGPU_PIPELINE_WARMUP=1), so that these run on NVIDIA too.
#include "runtime/pipeline_warmup.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

#include "runtime/device_state.h"
#include "runtime/kernel.h"
#include "runtime/spirv_kernel.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::glsl_kernel;
using wasm::ValType;
using Clock = std::chrono::steady_clock;

class WarmUpTest : public testing::VulkanTest {
 protected:
  void SetUp() override {
    setenv("WASMGPU_PIPELINE_WARMUP", "1", 1);
    VulkanTest::SetUp();
    unsetenv("WASMGPU_PIPELINE_WARMUP");
  }
  void TearDown() override {
    unsetenv("WASMGPU_COMPILE_TIMEOUT");
    VulkanTest::TearDown();
  }
  DeviceState& state() { return device->state(); }
};

// A number that differs between runs: put into a shader, it makes the driver
// compile it afresh instead of finding it in its own shader cache (Mesa keeps
// one on disk), so that the compile these tests bound really happens.
uint32_t fresh_constant() { return std::random_device{}() | 1u; }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Spins until the host writes a non-zero word at the device address arg64(1)
// (or, should that write never become visible, for 2^32 rounds), then stores
// its round count at arg32(0). The loop's volatile load keeps the compiler
// from hoisting it.
std::string spin_until_released() {
  return R"(
layout(buffer_reference, std430, buffer_reference_align = 4) volatile coherent buffer Flag { uint word; };
void kernel(uint index) {
  Flag flag = Flag(arg64(1));
  uint rounds = 0u;
  while (flag.word == 0u && rounds < 0xFFFFFFF0u) rounds += )" +
         std::to_string(fresh_constant() % 2 + 1) + R"(u;
  store32(arg32(0), rounds, index);
}
)";
}

TEST_F(WarmUpTest, AKernelThatDoesNotEndReportsTheLaunchTimeoutAfterThatTime) {
  auto kernel = Kernel::create(*device, glsl_kernel("endless", spin_until_released(), {ValType::I32, ValType::I64}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto out = device->create_buffer(16);
  ASSERT_TRUE(out.ok());
  // The release flag, in host-visible memory the host writes while the kernel runs.
  auto flag = state().create_raw_buffer(
      16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, MemoryKind::Host);
  ASSERT_TRUE(flag.ok()) << flag.error().message;
  std::memset(flag->mapped, 0, 16);

  LaunchOptions options;
  options.timeout = std::chrono::milliseconds(500);
  const Clock::time_point start = Clock::now();
  Status timed_out = kernel->launch(1, 1, {*out, uint64_t(flag->address)}, options);
  const double waited = seconds_since(start);
  ASSERT_FALSE(timed_out.ok());
  EXPECT_NE(timed_out.error().message.find(
                "kernel 'endless' did not finish: the kernel ran longer than 0.5 s, the launch timeout"),
            std::string::npos)
      << timed_out.error().message;
  EXPECT_EQ(timed_out.error().code, ErrorCode::Timeout);
  EXPECT_EQ(timed_out.error().message.find("compiling"), std::string::npos) << timed_out.error().message;
  // The compile went first, under its own bound: the launch's wait was its
  // 0.5 s, plus the compile (which takes well under a minute even on a busy
  // machine for a kernel this small).
  EXPECT_GE(waited, 0.5);
  EXPECT_LT(waited, 60.0);
  EXPECT_EQ(state().pipeline_warmups, 1u);

  // Released, it ends; the device takes work again.
  std::memcpy(flag->mapped, "\1\0\0\0", 4);
  Status waited_for = device->wait();
  ASSERT_TRUE(waited_for.ok()) << waited_for.error().message;
  // Launched again with the flag set, it ends at once; its pipeline, cached,
  // is not warmed up again.
  Status again = kernel->launch(1, 1, {*out, uint64_t(flag->address)}, options);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(state().pipeline_warmups, 1u);
  auto rounds = out->read_as<uint32_t>(1);
  ASSERT_TRUE(rounds.ok());
  EXPECT_EQ((*rounds)[0], 0u);  // released before it started: no rounds
  state().destroy_raw_buffer(*flag);
}

// A kernel with `statements` rounds of distinct integer mixing that only an
// argument of 12345 runs: long to compile, instant to run.
std::string slow_to_compile(int statements) {
  std::mt19937 random(fresh_constant());
  std::string body = "void kernel(uint index) {\n  uint x = index + arg32(1);\n  if (arg32(1) == 12345u) {\n";
  for (int i = 0; i < statements; ++i)
    body += "    x = (x ^ (x >> " + std::to_string(random() % 15 + 1) + "u)) * " + std::to_string(random() | 1u) +
            "u + " + std::to_string(random()) + "u;\n";
  body += "  }\n  store32(arg32(0), x, index);\n}\n";
  return body;
}

TEST_F(WarmUpTest, TheLaunchTimeoutDoesNotCountTheCompile) {
  auto kernel =
      Kernel::create(*device, glsl_kernel("slow_compile", slow_to_compile(3000), {ValType::I32, ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto out = device->create_buffer(16);
  ASSERT_TRUE(out.ok());
  // Shorter than the compile (on lavapipe; NVIDIA compiles in
  // vkCreateComputePipelines), far longer than running one invocation.
  LaunchOptions options;
  options.timeout = std::chrono::milliseconds(200);
  const Clock::time_point start = Clock::now();
  Status launched = kernel->launch(1, 1, {*out, 7u}, options);
  const double took = seconds_since(start);
  ASSERT_TRUE(launched.ok()) << launched.error().message << " (after " << took << " s)";
  EXPECT_EQ(state().pipeline_warmups, 1u);
  auto x = out->read_as<uint32_t>(1);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0], 7u);
  RecordProperty("first_launch_seconds", std::to_string(took));
  // On lavapipe the compile is what made the launch take longer than its
  // timeout; otherwise this test would not show that it is not counted.
  if (state().info.driver_id == VK_DRIVER_ID_MESA_LLVMPIPE) {
    EXPECT_GT(took, 0.2) << "the kernel compiled faster than the launch timeout: make it larger";
  }
}

TEST_F(WarmUpTest, ACompileLongerThanTheCompileTimeoutIsReportedAsSuch) {
  auto kernel =
      Kernel::create(*device, glsl_kernel("slow_compile", slow_to_compile(200), {ValType::I32, ValType::I32}));
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  auto out = device->create_buffer(16);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->fill(0xDEAD).ok());
  // 1 ns: no driver compiles (or even runs an empty submission) that fast.
  setenv("WASMGPU_COMPILE_TIMEOUT", "0.000000001", 1);
  EXPECT_EQ(default_compile_timeout(), std::chrono::nanoseconds(1));
  Status launched = kernel->launch(1, 1, {*out, 7u});  // the launch timeout: 600 s in the tests
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("kernel 'slow_compile' did not start: compiling the pipeline took "
                                          "longer than 1e-09 s, the compile timeout (WASMGPU_COMPILE_TIMEOUT)"),
            std::string::npos)
      << launched.error().message;
  EXPECT_EQ(launched.error().code, ErrorCode::Timeout);
  EXPECT_EQ(launched.error().message.find("the kernel ran"), std::string::npos) << launched.error().message;
  // While the driver still compiles, new work is refused, naming the compile.
  Status busy = out->fill(0);
  if (!busy.ok()) {
    EXPECT_NE(busy.error().message.find("is busy: compiling the pipeline of kernel 'slow_compile' timed out"),
              std::string::npos)
        << busy.error().message;
    EXPECT_EQ(busy.error().code, ErrorCode::Timeout);
  }
  Status waited = device->wait();
  ASSERT_TRUE(waited.ok()) << waited.error().message;
  unsetenv("WASMGPU_COMPILE_TIMEOUT");
  EXPECT_EQ(default_compile_timeout(), std::chrono::nanoseconds(kDefaultCompileTimeout));
  // The kernel never ran; its pipeline, compiled meanwhile, now launches.
  auto untouched = out->read_as<uint32_t>(1);
  ASSERT_TRUE(untouched.ok());
  EXPECT_EQ((*untouched)[0], 0xDEADu);
  Status again = kernel->launch(1, 1, {*out, 7u});
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto x = out->read_as<uint32_t>(1);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ((*x)[0], 7u);
  EXPECT_EQ(state().pipeline_warmups, 0u);  // the one warm-up did not finish in time
}

// saxpy (y = a * x + y) as foreign GLSL with a specialisable workgroup size,
// behind a branch on a fresh constant that no input takes. The fresh body keeps
// the driver from finding the shader in its own disk cache, whose hit can end
// a warm-up before any compile timeout is looked at.
std::string fresh_saxpy_glsl() {
  std::mt19937 random(fresh_constant());
  std::string source = R"(#version 450
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer Xs { float x[]; } xs;
layout(set = 0, binding = 1) buffer Ys { float y[]; } ys;
layout(push_constant) uniform Push { uint n; float a; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  float y = pc.a * xs.x[i] + ys.y[i];
  if (pc.n == )" + std::to_string(random() | 0x80000000u) +
                       R"(u) {
    uint h = i;
)";
  for (int k = 0; k < 200; ++k)
    source +=
        "    h = (h ^ (h >> " + std::to_string(random() % 15 + 1) + "u)) * " + std::to_string(random() | 1u) + "u;\n";
  source += "    y = float(h);\n  }\n  ys.y[i] = y;\n}\n";
  return source;
}

// Foreign SPIR-V kernels warm up at their first dispatch, with its bindings.
TEST_F(WarmUpTest, SpirvKernelsWarmUpWithTheirBindings) {
  const std::vector<uint32_t> words = testing::compile_glsl(fresh_saxpy_glsl());
  ASSERT_FALSE(words.empty());
  auto saxpy = SpirvKernel::create(state(), words);
  ASSERT_TRUE(saxpy.ok()) << saxpy.error().to_string();
  const uint32_t n = 64;
  std::vector<float> x(n, 2.0f), y(n, 1.0f);
  auto xs = device->create_buffer(4 * n), ys = device->create_buffer(4 * n);
  ASSERT_TRUE(xs.ok() && ys.ok());
  ASSERT_TRUE(xs->write(x.data(), 4 * n).ok() && ys->write(y.data(), 4 * n).ok());
  const SpirvArg args[] = {SpirvArg::buffer(*xs), SpirvArg::buffer(*ys), SpirvArg::of(n), SpirvArg::of(3.0f)};
  // A workgroup size the kernel has no pipeline for yet, so the launch makes one.
  const SpirvLaunch launch{{2, 1, 1}, std::array<uint32_t, 3>{32, 1, 1}, {}};
  setenv("WASMGPU_COMPILE_TIMEOUT", "0.000000001", 1);
  Status refused = saxpy->launch(launch, args);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("kernel 'main' did not start: compiling the pipeline took longer than"),
            std::string::npos)
      << refused.error().message;
  ASSERT_TRUE(device->wait().ok());
  unsetenv("WASMGPU_COMPILE_TIMEOUT");
  Status launched = saxpy->launch(launch, args);
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  auto result = ys->read_as<float>(n);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, std::vector<float>(n, 7.0f));  // once: the refused launch never ran
  EXPECT_EQ(state().pipeline_warmups, 0u);
  // A second pipeline warms up in time.
  const SpirvLaunch other{{1, 1, 1}, std::array<uint32_t, 3>{64, 1, 1}, {}};
  ASSERT_TRUE(saxpy->launch(other, args).ok());
  EXPECT_EQ(state().pipeline_warmups, 1u);
}

TEST(WarmUpPolicy, EveryDriverButNvidiaByDefaultAndTheVariableDecides) {
  DeviceInfo info;
  unsetenv("WASMGPU_PIPELINE_WARMUP");
  info.driver_id = VK_DRIVER_ID_MESA_LLVMPIPE;
  EXPECT_TRUE(pipeline_warmup_wanted(info));
  info.driver_id = VK_DRIVER_ID_NVIDIA_PROPRIETARY;
  EXPECT_FALSE(pipeline_warmup_wanted(info));
  setenv("WASMGPU_PIPELINE_WARMUP", "1", 1);
  EXPECT_TRUE(pipeline_warmup_wanted(info));
  setenv("WASMGPU_PIPELINE_WARMUP", "0", 1);
  info.driver_id = VK_DRIVER_ID_MESA_LLVMPIPE;
  EXPECT_FALSE(pipeline_warmup_wanted(info));
  unsetenv("WASMGPU_PIPELINE_WARMUP");
  EXPECT_EQ(format_seconds(std::chrono::milliseconds(500)), "0.5 s");
  EXPECT_EQ(format_seconds(std::chrono::seconds(20)), "20 s");
}

}  // namespace
}  // namespace wasmgpu::runtime
