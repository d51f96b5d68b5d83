// Kernels in C++ (clang-19 with libc++) and Rust (Debian's rustc, no_std),
// built by tests/CMakeLists.txt, run on the device against CPU references
// computed here.
#include <algorithm>
#include <array>
#include <cstdint>

#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

// The modules are built into kernels_lang/ beside kernels/ (tests/CMakeLists.txt).
const std::string kCxxFeatures = "../kernels_lang/cxx_features", kCxxSort = "../kernels_lang/cxx_sort",
                  kRust = "../kernels_lang/rust_kernels";

class CxxKernels : public EndToEnd {};

uint32_t crc32_of_word(uint32_t w) {
  uint32_t c = 0xFFFFFFFFu;
  for (int b = 0; b < 4; ++b) {
    c ^= (w >> (8 * b)) & 0xFF;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}

TEST_P(CxxKernels, ClassesTemplatesLambdasAndConstexprTablesMatchTheCpu) {
  constexpr uint32_t n = 300;
  std::vector<uint32_t> words = random_words(n, 25);
  std::vector<int32_t> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = int32_t(words[i] % 2001) - 1000;
  runtime::Buffer in = buffer_with(words), crc = buffer(4 * n), xs = buffer_with(x), f = buffer(4 * n);
  Status launched = kernel(kCxxFeatures, "cxx_features").launch(n, 64, {in, crc, xs, f});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint32_t> expected_crc(n);
  std::vector<int32_t> expected_f(n);
  for (uint32_t i = 0; i < n; ++i) {
    expected_crc[i] = crc32_of_word(words[i]);
    int v = x[i];
    // ((v, v + 1) + (3, -2)) * 2 dotted with (3, -2), plus 2 * (v + 3v - v + 7).
    expected_f[i] = 2 * (v + 3) * 3 + 2 * (v + 1 - 2) * -2 + 2 * (v + 3 * v - v + 7);
  }
  EXPECT_TRUE(same_values(read<uint32_t>(crc, n), expected_crc));
  EXPECT_TRUE(same_values(read<int32_t>(f, n), expected_f));
}

void check_sort(EndToEnd& test, runtime::Kernel& k, runtime::Buffer& in, runtime::Buffer& out,
                const std::vector<int32_t>& values, uint32_t n) {
  Status launched = k.launch(n, 64, {in, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int32_t> expected = values;
  for (uint32_t i = 0; i < n; ++i) std::sort(expected.begin() + 16 * i, expected.begin() + 16 * (i + 1));
  auto got = out.read_as<int32_t>(16 * n);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_TRUE(same_values(*got, expected, 16));
  (void)test;
}

std::vector<int32_t> sort_input(uint32_t n) {
  std::vector<uint32_t> words = random_words(16 * n, 16);
  std::vector<int32_t> values(words.begin(), words.end());
  for (size_t i = 0; i < values.size(); i += 5) values[i] = values[i / 2];  // duplicates
  return values;
}

// std::make_heap and std::sort_heap with lambda comparators (header-only),
// at -O2 only: at -O0 lavapipe compiled it for over 9 minutes without
// finishing (3 s at -O2).
class CxxKernelsAtO2 : public EndToEnd {};

TEST_P(CxxKernelsAtO2, HeapSortFromAlgorithmMatchesTheCpu) {
  constexpr uint32_t n = 70;
  std::vector<int32_t> values = sort_input(n);
  runtime::Buffer in = buffer_with(values), out = buffer(4 * 16 * n);
  check_sort(*this, kernel(kCxxSort, "heapsort16"), in, out, values, n);
}

INSTANTIATE_TEST_SUITE_P(OptLevels, CxxKernels, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });
INSTANTIATE_TEST_SUITE_P(OptLevels, CxxKernelsAtO2, ::testing::Values("O2"),
                         [](const auto& info) { return std::string(info.param); });

class RustKernels : public EndToEnd {};

TEST_P(RustKernels, SlicesIteratorsAndGenericsMatchTheCpu) {
  constexpr uint32_t n = 200, width = 5;
  std::vector<uint32_t> words = random_words(n, 5);
  std::vector<int32_t> x(words.begin(), words.end());
  runtime::Buffer xs = buffer_with(x), out = buffer(4 * n);
  Status launched = kernel(kRust, "window").launch(n, 64, {xs, out, n, width});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t sum = 0;
    for (uint32_t k = i; k < std::min(n, i + width); ++k) sum += uint32_t(x[k]) * (k - i + 1);
    int32_t s = x[i] & 0xff;
    sum += uint32_t(s * 3 + 2 * s + s * s + (s + 1) * (s + 1));
    expected[i] = int32_t(sum);
  }
  EXPECT_TRUE(same_values(read<int32_t>(out, n), expected));
}

TEST_P(RustKernels, GenericAxpyWithIdsAndAtomicsMatchesTheCpu) {
  constexpr uint32_t n = 333;
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(int(i % 17) - 8) * 0.25f, y[i] = float(int(i % 5) - 2) * 0.5f;
  runtime::Buffer xs = buffer_with(x), ys = buffer_with(y), positives = buffer_with(std::vector<int32_t>{0});
  Status launched = kernel(kRust, "axpy").launch(n, 64, {1.5f, xs, ys, n, positives});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<float> expected(n);
  int32_t expected_positives = 0;
  for (uint32_t i = 0; i < n; ++i) {
    volatile float product = 1.5f * x[i];  // rounded as wasm rounds, no fused multiply-add
    expected[i] = product + y[i];
    expected_positives += expected[i] > 0.0f;
  }
  EXPECT_TRUE(same_values(read<float>(ys, n), expected));
  EXPECT_EQ(read<int32_t>(positives, 1)[0], expected_positives);
}

// The kernel metadata record written by rust/wasmgpu.rs's const fns.
TEST_P(RustKernels, MetadataRecordsDescribeTheParameters) {
  runtime::Module& module = load(kRust);
  auto metadata = module.kernel_metadata();
  ASSERT_EQ(metadata.size(), 2u);
  const wasm::KernelMetadata& window = metadata[0].kernel == "window" ? metadata[0] : metadata[1];
  const wasm::KernelMetadata& axpy = metadata[0].kernel == "window" ? metadata[1] : metadata[0];
  EXPECT_EQ(window.kernel, "window");
  EXPECT_EQ(axpy.kernel, "axpy");
  using Kind = wasm::KernelParam::Kind;
  ASSERT_EQ(window.params.size(), 5u);
  EXPECT_EQ(window.params[1], (wasm::KernelParam{Kind::ConstPointer, 4, 4, "x", "const int *", "int"}));
  EXPECT_EQ(window.params[2], (wasm::KernelParam{Kind::Pointer, 4, 4, "out", "int *", "int"}));
  EXPECT_EQ(window.params[4], (wasm::KernelParam{Kind::Integer, 4, 4, "width", "unsigned", ""}));
  ASSERT_EQ(axpy.params.size(), 6u);
  EXPECT_EQ(axpy.params[1], (wasm::KernelParam{Kind::Float, 4, 4, "a", "float", ""}));
  EXPECT_EQ(axpy.params[5], (wasm::KernelParam{Kind::Pointer, 4, 4, "positives", "int *", "int"}));
}

INSTANTIATE_TEST_SUITE_P(OptLevels, RustKernels, ::testing::Values("O2"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
