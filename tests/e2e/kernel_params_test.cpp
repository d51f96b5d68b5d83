// Kernel parameter metadata end to end: tests/kernels/kernel_params.c,
// compiled by clang with include/wasmgpu.h, carries its parameter list in the
// "wasmgpu.kernels" section; the runtime reads it back exactly (struct sizes
// and alignments equal the host compiler's, since the layouts agree) and the
// kernel runs as one without metadata would.
#include "../kernels/kernel_params.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

using Kind = wasm::KernelParam::Kind;

class KernelParams : public EndToEnd {};

TEST_P(KernelParams, MetadataReadsBackExactly) {
  runtime::Module& module = load("kernel_params");
  std::span<const wasm::KernelMetadata> metadata = module.kernel_metadata();
  ASSERT_EQ(metadata.size(), 1u);
  EXPECT_EQ(metadata[0].kernel, "integrate");
  std::vector<wasm::KernelParam> expected = {
      {Kind::Integer, sizeof(int), alignof(int), "index", "int", ""},
      {Kind::ConstPointer, sizeof(Body), alignof(Body), "bodies", "const Body *", "Body"},
      {Kind::Float, sizeof(double), alignof(double), "dt", "double", ""},
      {Kind::Integer, sizeof(int64_t), alignof(int64_t), "step", "int64_t", ""},
      {Kind::Float, sizeof(float), alignof(float), "damping", "float", ""},
      {Kind::Pointer, sizeof(BodyState), alignof(BodyState), "states", "BodyState *", "BodyState"},
      {Kind::Integer, sizeof(unsigned), alignof(unsigned), "count", "unsigned", ""},
  };
  ASSERT_EQ(metadata[0].params.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(metadata[0].params[i], expected[i])
        << "parameter " << i << ": got " << wasm::describe(metadata[0].params[i]);
}

TEST_P(KernelParams, KernelRunsAndMatchesTheCpu) {
  constexpr unsigned kCount = 200;
  std::vector<Body> bodies(kCount);
  for (unsigned i = 0; i < kCount; ++i) bodies[i] = {0.25 * i - 7.0, 1.0 / (i + 3), 0.5f + float(i % 17)};
  runtime::Buffer in = buffer_with(bodies);
  runtime::Buffer out = buffer(sizeof(BodyState) * kCount);
  ASSERT_TRUE(out.fill(0).ok());
  Status launched =
      kernel("kernel_params", "integrate").launch(kCount, 64, {in, 0.125, int64_t(1) << 40, 0.75f, out, kCount});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<BodyState> native(kCount);
  for (unsigned i = 0; i < kCount; ++i)
    integrate(int(i), bodies.data(), 0.125, int64_t(1) << 40, 0.75f, native.data(), kCount);
  std::vector<BodyState> gpu = read<BodyState>(out, kCount);
  for (unsigned i = 0; i < kCount; ++i) {
    bool same = std::memcmp(&gpu[i].position, &native[i].position, sizeof(double)) == 0 &&
                std::memcmp(&gpu[i].energy, &native[i].energy, sizeof(float)) == 0 && gpu[i].step == native[i].step;
    EXPECT_TRUE(same) << "body " << i << ": gpu " << gpu[i].position << " " << gpu[i].energy << " " << gpu[i].step
                      << ", native " << native[i].position << " " << native[i].energy << " " << native[i].step;
  }
}

// The same module with parameter dt's record changed from a floating-point
// to an integer value: the runtime refuses to load it, naming kernel and parameter.
TEST_P(KernelParams, LoadRefusesMetadataThatDisagreesWithTheSignature) {
  std::ifstream in(kernels_dir() + "/kernel_params." + std::string(GetParam()) + ".wasm", std::ios::binary);
  std::vector<uint8_t> wasm((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string dt_record("dt\0double\0", 10);
  auto found = std::search(wasm.begin(), wasm.end(), dt_record.begin(), dt_record.end());
  ASSERT_NE(found, wasm.end());
  uint8_t& kind = *(found - 9);  // kind, size (4 bytes), alignment (4 bytes), name
  ASSERT_EQ(kind, uint8_t(Kind::Float));
  kind = uint8_t(Kind::Integer);
  auto module = runtime::Module::load(*device_, wasm);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message,
            "parameter metadata for kernel 'integrate', parameter 2 (double dt): the wasm function takes f64 there, "
            "not i64");
}

INSTANTIATE_TEST_SUITE_P(OptLevels, KernelParams, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
