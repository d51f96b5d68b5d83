// Real wasm kernels: C compiled with clang-19 and wasm-ld-19 at test time,
// decoded, compiled to SPIR-V by spirv::compile_kernel and launched.
#include "runtime/module.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;

// Compiles and links C to a wasm module (never through the clang driver's
// link step, which would run wasm-opt when it is on the PATH).
std::vector<uint8_t> compile_c(const std::string& source, const char* opt = "-O2") {
  namespace fs = std::filesystem;
  static int counter = 0;
  const fs::path dir =
      fs::temp_directory_path() / ("wasmgpu-module-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  std::ofstream(dir / "k.c") << source;
  const std::string command = "cd '" + dir.string() + "' && clang-19 --target=wasm32 -nostdlib -ffreestanding " + opt +
                              " -c k.c -o k.o && wasm-ld-19 --no-entry k.o -o k.wasm 2>&1";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "cannot compile:\n" << source;
    return {};
  }
  std::ifstream file(dir / "k.wasm", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return bytes;
}

const char* kKernels = R"(
__attribute__((export_name("saxpy")))
void saxpy(int i, float a, const float* x, float* y) { y[i] = a * x[i] + y[i]; }

__attribute__((export_name("divide")))
void divide(int i, const int* num, const int* den, int* out) { out[i] = num[i] / den[i]; }

static const int table[4] = {10, 20, 30, 40};
__attribute__((export_name("lookup")))
void lookup(int i, int* out) { out[i] = table[i & 3]; }

__attribute__((export_name("scaled")))
void scaled(int i, long long add, double scale, double* out) { out[i] = (double)(i + add) * scale; }

__attribute__((export_name("not_a_kernel")))
int not_a_kernel(int x) { return x + 1; }
)";

TEST_F(VulkanTest, WasmKernelsRun) {
  std::vector<uint8_t> wasm = compile_c(kKernels);
  ASSERT_FALSE(wasm.empty());
  auto module = Module::load(*device, wasm);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  EXPECT_GT(module->memory_bytes(), 0u);

  const uint32_t n = 1000;
  auto x = device->create_buffer(4 * n);
  auto y = device->create_buffer(4 * n);
  ASSERT_TRUE(x.ok() && y.ok());
  std::vector<float> xs(n), ys(n);
  for (uint32_t i = 0; i < n; ++i) xs[i] = float(i) * 0.25f, ys[i] = 1.0f - float(i);
  ASSERT_TRUE(x->write(xs).ok() && y->write(ys).ok());
  Status launched = module->launch("saxpy", n, 64, {2.0f, *x, *y});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  auto out = y->read_as<float>(n);
  ASSERT_TRUE(out.ok());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ((*out)[i], 2.0f * xs[i] + ys[i]) << i;

  // Static data from a data segment.
  auto lookups = device->create_buffer(4 * 8);
  ASSERT_TRUE(lookups.ok());
  launched = module->launch("lookup", 8, 0, {*lookups});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(*lookups->read_as<int32_t>(8), (std::vector<int32_t>{10, 20, 30, 40, 10, 20, 30, 40}));

  // i64 and f64 scalars.
  if (device->float64_enabled()) {
    auto doubles = device->create_buffer(8 * 4);
    ASSERT_TRUE(doubles.ok());
    launched = module->launch("scaled", 4, 0, {int64_t(1) << 33, 0.5, *doubles});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    auto values = doubles->read_as<double>(4);
    for (int i = 0; i < 4; ++i) EXPECT_EQ((*values)[i], double((int64_t(1) << 33) + i) * 0.5);
  }

  // Argument errors name the position and type.
  Status wrong = module->launch("saxpy", n, 64, {*x, *x, *y});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("argument 1 (parameter 1 of the wasm function) is f32, "
                                       "but a Buffer was given"),
            std::string::npos)
      << wrong.error().message;
  Status not_kernel = module->launch("not_a_kernel", 1, 0, {});
  ASSERT_FALSE(not_kernel.ok());
  EXPECT_NE(not_kernel.error().message.find("returns values"), std::string::npos) << not_kernel.error().message;
  Status missing = module->launch("nope", 1, 0, {});
  EXPECT_FALSE(missing.ok());
}

TEST_F(VulkanTest, WasmTrapsAreReported) {
  std::vector<uint8_t> wasm = compile_c(kKernels);
  ASSERT_FALSE(wasm.empty());
  auto module = Module::load(*device, wasm);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const uint32_t n = 64;
  auto num = device->create_buffer(4 * n);
  auto den = device->create_buffer(4 * n);
  auto out = device->create_buffer(4 * n);
  ASSERT_TRUE(num.ok() && den.ok() && out.ok());
  std::vector<int32_t> nums(n, 100), dens(n, 7);
  dens[33] = dens[21] = 0;
  ASSERT_TRUE(num->write(nums).ok() && den->write(dens).ok());
  Status trapped = module->launch("divide", n, 16, {*num, *den, *out});
  ASSERT_FALSE(trapped.ok());
  EXPECT_EQ(trapped.error().message,
            "kernel 'divide' trapped: integer divide by zero at invocation 21 "
            "(2 invocations trapped)");
  // Out of bounds: n invocations over a buffer that holds fewer values.
  auto short_out = device->create_buffer(4 * 10);
  ASSERT_TRUE(short_out.ok());
  dens.assign(n, 7);
  ASSERT_TRUE(den->write(dens).ok());
  Status oob = module->launch("divide", n, 16, {*num, *den, *short_out});
  ASSERT_FALSE(oob.ok());
  EXPECT_NE(oob.error().message.find("out of bounds memory access at invocation 10"), std::string::npos)
      << oob.error().message;
}

// -O0 keeps locals in the shadow stack: per-invocation stacks at work.
TEST_F(VulkanTest, WasmKernelWithShadowStack) {
  std::vector<uint8_t> wasm = compile_c(R"(
__attribute__((export_name("reverse")))
void reverse(int i, const int* in, int* out) {
  int local[8];
  for (int k = 0; k < 8; ++k) local[k] = in[8 * i + k] + i;
  for (int k = 0; k < 8; ++k) out[8 * i + k] = local[7 - k];
}
)",
                                        "-O0");
  ASSERT_FALSE(wasm.empty());
  auto module = Module::load(*device, wasm);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const uint32_t n = 300;
  auto in = device->create_buffer(4 * 8 * n);
  auto out = device->create_buffer(4 * 8 * n);
  ASSERT_TRUE(in.ok() && out.ok());
  std::vector<int32_t> values(8 * n);
  for (uint32_t i = 0; i < 8 * n; ++i) values[i] = int32_t(i * 3);
  ASSERT_TRUE(in->write(values).ok());
  auto kernel = module->kernel("reverse");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  const spirv::KernelInfo& info = (*kernel)->info();
  EXPECT_GT(info.stack_slot_size, 0u);
  Status launched = (*kernel)->launch(n, 32, {*in, *out});
  ASSERT_TRUE(launched.ok()) << launched.error().message << " (stack window [" << info.stack_window_lo << ", "
                             << info.stack_hi << "), slot " << info.stack_slot_size << ")";
  auto result = out->read_as<int32_t>(8 * n);
  ASSERT_TRUE(result.ok());
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < 8; ++k)
      ASSERT_EQ((*result)[8 * i + k], values[8 * i + 7 - k] + int32_t(i)) << i << " " << k;
}

// dst[i] = p[0] + 2 p[1] + 3 p[2] + 4 p[3] for p = src + 4 * stride * i: a
// group of four words whose 16-alignment only the launch tells. With
// subgroup votes it is one 16-byte load where the subgroup is aligned; on a
// device without them (hidden here) the runtime compiles word loads. Both
// give the same sums, aligned (stride 4) or not (stride 1).
constexpr const char* kStridedSum = R"((module (memory 1)
  (func (export "k") (param $i i32) (param $src i32) (param $dst i32) (param $stride i32)
    (local $p i32)
    (local.set $p (i32.add (local.get $src) (i32.shl (i32.mul (local.get $i) (local.get $stride)) (i32.const 2))))
    (i32.store (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 2)))
      (i32.add (i32.add (i32.load (local.get $p)) (i32.mul (i32.load offset=4 (local.get $p)) (i32.const 2)))
               (i32.add (i32.mul (i32.load offset=8 (local.get $p)) (i32.const 3))
                        (i32.mul (i32.load offset=12 (local.get $p)) (i32.const 4)))))))
)";

void expect_strided_sums(Device& device, uint32_t wide_when_aligned) {
  auto module = Module::load(device, testing::wat_to_wasm(kStridedSum));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  auto kernel = module->kernel("k");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  EXPECT_EQ((*kernel)->info().memory_access_paths.wide_when_aligned, wide_when_aligned);
  const uint32_t n = 96;
  std::vector<uint32_t> words(4 * n + 4);
  for (uint32_t k = 0; k < words.size(); ++k) words[k] = k * 7 + 1;
  auto src = device.create_buffer(4 * words.size());
  auto dst = device.create_buffer(4 * n);
  ASSERT_TRUE(src.ok() && dst.ok());
  ASSERT_TRUE(src->write(words).ok());
  for (uint32_t stride : {4u, 1u}) {
    Status launched = (*kernel)->launch(n, 32, {*src, *dst, stride});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    auto sums = dst->read_as<uint32_t>(n);
    ASSERT_TRUE(sums.ok());
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t* p = words.data() + stride * i;
      ASSERT_EQ((*sums)[i], p[0] + 2 * p[1] + 3 * p[2] + 4 * p[3]) << "stride " << stride << ", i " << i;
    }
  }
}

TEST_F(VulkanTest, GroupsAlignedAtRunTimeVoteWhereTheDeviceCan) {
  ASSERT_TRUE(device->info().features.subgroup_vote);  // lavapipe and the GPUs we target have votes
  expect_strided_sums(*device, 1);
}

class DeviceWithoutSubgroupVote : public VulkanTest {
 protected:
  void SetUp() override {
    setenv("WASMGPU_HIDE_FEATURES", "subgroup_vote", 1);
    VulkanTest::SetUp();
    unsetenv("WASMGPU_HIDE_FEATURES");
  }
};

TEST_F(DeviceWithoutSubgroupVote, GroupsAlignedAtRunTimeUseWordAccesses) {
  ASSERT_FALSE(device->info().features.subgroup_vote);
  expect_strided_sums(*device, 0);
}

TEST(ModuleMemory, DataSegmentsAndErrors) {
  wasm::Module module;
  module.memories.push_back(wasm::MemoryType{wasm::Limits{1, std::nullopt}});
  wasm::DataSegment segment;
  wasm::Instr offset;
  offset.op = wasm::Opcode::I32Const;
  offset.imm64 = 100;
  wasm::Instr end;
  end.op = wasm::Opcode::End;
  segment.offset.instrs = {offset, end};
  segment.bytes = {1, 2, 3};
  module.data.push_back(segment);
  auto image = initial_memory(module);
  ASSERT_TRUE(image.ok());
  EXPECT_EQ(image->size(), 65536u);
  EXPECT_EQ((*image)[100], 1);
  EXPECT_EQ((*image)[102], 3);
  EXPECT_EQ((*image)[103], 0);

  module.data[0].offset.instrs[0].imm64 = 65534;
  auto overflow = initial_memory(module);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message,
            "data segment 0 (3 bytes at offset 65534) does not fit in the module's 65536-byte "
            "memory");

  wasm::Instr global;
  global.op = wasm::Opcode::GlobalGet;
  module.data[0].offset.instrs = {global, end};
  auto computed = initial_memory(module);
  ASSERT_FALSE(computed.ok());
  EXPECT_NE(computed.error().message.find("not a constant i32"), std::string::npos);

  module.memories[0].limits.min = 4097;  // 256 MiB + 64 KiB
  module.data.clear();
  auto huge = initial_memory(module);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("fit below the buffers"), std::string::npos);
}

}  // namespace
}  // namespace wasmgpu::runtime
