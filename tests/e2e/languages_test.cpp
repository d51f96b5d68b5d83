// Kernels in C++ (clang-19 with libc++), Rust (Debian's rustc, no_std),
// AssemblyScript and Zig (compilers from npm) and C through Emscripten,
// built by tests/CMakeLists.txt, run on the device against CPU references
// computed here.
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>

#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

// The modules are built into kernels_lang/ beside kernels/ (tests/CMakeLists.txt).
const std::string kCxxFeatures = "../kernels_lang/cxx_features", kCxxSort = "../kernels_lang/cxx_sort",
                  kRust = "../kernels_lang/rust_kernels", kAssemblyScript = "../kernels_lang/as_kernels",
                  kAssemblyScriptAbort = "../kernels_lang/as_kernels_abort", kZig = "../kernels_lang/zig_kernels",
                  kEmscripten = "../kernels_lang/emcc_kernels";

// The toolchains of AssemblyScript, Zig and Emscripten are found when CMake
// configures; without one its kernels are not built and these tests fail here.
std::string built_kernel(const std::string& name, const std::string& level) {
  std::string path = kernels_dir() + "/" + name + "." + level + ".wasm";
  EXPECT_TRUE(std::filesystem::exists(path))
      << "missing " << path << ": its compiler was not found; run scripts/install-deps.sh and configure again";
  return path;
}

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
// The Rust and Zig kernel-side modules record the same two kernels, window
// and axpy, with the same C-level parameter descriptions.
void expect_window_and_axpy_records(std::span<const wasm::KernelMetadata> metadata) {
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

TEST_P(RustKernels, MetadataRecordsDescribeTheParameters) {
  expect_window_and_axpy_records(load(kRust).kernel_metadata());
}

INSTANTIATE_TEST_SUITE_P(OptLevels, RustKernels, ::testing::Values("O2"),
                         [](const auto& info) { return std::string(info.param); });

// ---- AssemblyScript (assemblyscript/wasmgpu.ts; asc --runtime stub --use abort=) ----

class AssemblyScriptKernels : public EndToEnd {};

float as_clamp(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

TEST_P(AssemblyScriptKernels, LoadStoreGenericsAndAStaticTableMatchTheCpu) {
  built_kernel(kAssemblyScript, GetParam());
  constexpr uint32_t n = 257;
  const float lo = 40.0f;
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(int(i % 37) - 18) * 0.375f;
  runtime::Buffer xs = buffer_with(x), y = buffer(4 * n), bits = buffer(4 * n);
  Status launched = kernel(kAssemblyScript, "poly").launch(n, 64, {xs, y, bits, n, lo});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  const float coeffs[] = {0.5f, -1.25f, 2.0f, 3.0f};
  std::vector<float> expected_y(n);
  std::vector<int32_t> expected_bits(n);
  for (uint32_t i = 0; i < n; ++i) {
    volatile float acc = 0.0f;  // rounded after each operation, as wasm does
    for (float c : coeffs) {
      volatile float product = acc * x[i];
      acc = product + c;
    }
    expected_y[i] = as_clamp(acc, -lo, lo);
    expected_bits[i] = std::clamp(std::popcount(std::bit_cast<uint32_t>(x[i])), 4, 28);
  }
  EXPECT_TRUE(same_values(read<float>(y, n), expected_y));
  EXPECT_TRUE(same_values(read<int32_t>(bits, n), expected_bits));
}

TEST_P(AssemblyScriptKernels, IdsAndAnAtomicCountMatchTheCpu) {
  built_kernel(kAssemblyScript, GetParam());
  constexpr uint32_t n = 300;
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = float((i * 7919u) % 101) - 50.0f;
  runtime::Buffer xs = buffer_with(x), counter = buffer_with(std::vector<int32_t>{0});
  Status launched = kernel(kAssemblyScript, "count_above").launch(n, 64, {xs, n, 12.5f, counter});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(read<int32_t>(counter, 1)[0], std::count_if(x.begin(), x.end(), [](float v) { return v > 12.5f; }));
}

TEST_P(AssemblyScriptKernels, WorkgroupIdsAfterABarrierMatchTheLaunch) {
  built_kernel(kAssemblyScript, GetParam());
  // A barrier needs whole workgroups: 256 invocations, of which the first n write.
  constexpr uint32_t n = 200, size = 64, invocations = 256;
  runtime::Buffer out = buffer(4 * invocations);
  Status launched = kernel(kAssemblyScript, "ids").launch(invocations, size, {out, n});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = (i % size) | ((i / size) << 8) | (size << 20);
  EXPECT_TRUE(same_values(read<uint32_t>(out, n), expected));
}

INSTANTIATE_TEST_SUITE_P(OptLevels, AssemblyScriptKernels, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

// Built without `--use abort=` (at -O2), the bounds check of the table calls
// the host's env.abort: refused, with the flag that fixes it.
class AssemblyScriptAbort : public EndToEnd {};

TEST_P(AssemblyScriptAbort, HostAbortIsRefusedNamingTheFlag) {
  built_kernel(kAssemblyScriptAbort, GetParam());
  auto refused = load(kAssemblyScriptAbort).kernel("poly");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("env.abort"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("--use abort="), std::string::npos) << refused.error().message;
  // The other kernel has no bounds check, so no abort, and runs.
  EXPECT_TRUE(load(kAssemblyScriptAbort).kernel("count_above").ok());
}

INSTANTIATE_TEST_SUITE_P(OptLevels, AssemblyScriptAbort, ::testing::Values("O2"),
                         [](const auto& info) { return std::string(info.param); });

// ---- Zig 0.11 (zig/wasmgpu.zig; wasm32-freestanding, -dynamic -rdynamic) ----

class ZigKernels : public EndToEnd {};

TEST_P(ZigKernels, RangesGenericsAndCheckedArithmeticMatchTheCpu) {
  built_kernel(kZig, GetParam());
  constexpr uint32_t n = 200, width = 5;
  std::vector<uint32_t> words = random_words(n, 11);
  std::vector<int32_t> x(words.begin(), words.end());
  runtime::Buffer xs = buffer_with(x), out = buffer(4 * n);
  Status launched = kernel(kZig, "window").launch(n, 64, {xs, out, n, width});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t sum = 0;
    for (uint32_t k = i; k < std::min(n, i + width); ++k) sum += uint32_t(x[k]) * (k - i + 1);
    int32_t s = x[i] & 0xff;
    // (s, 3) + (2, s) dotted with (3, -2); s < 256, so no overflow trips Debug's checks.
    sum += uint32_t((s + 2) * 3 + (3 + s) * -2);
    expected[i] = int32_t(sum);
  }
  EXPECT_TRUE(same_values(read<int32_t>(out, n), expected));
}

TEST_P(ZigKernels, AxpyWithIdsAndAnAtomicMatchesTheCpu) {
  built_kernel(kZig, GetParam());
  constexpr uint32_t n = 333;
  std::vector<float> x(n), y(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(int(i % 13) - 6) * 0.75f, y[i] = float(int(i % 7) - 3) * 0.5f;
  runtime::Buffer xs = buffer_with(x), ys = buffer_with(y), positives = buffer_with(std::vector<int32_t>{0});
  Status launched = kernel(kZig, "axpy").launch(n, 64, {-1.25f, xs, ys, n, positives});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<float> expected(n);
  int32_t expected_positives = 0;
  for (uint32_t i = 0; i < n; ++i) {
    volatile float product = -1.25f * x[i];
    expected[i] = product + y[i];
    expected_positives += expected[i] > 0.0f;
  }
  EXPECT_TRUE(same_values(read<float>(ys, n), expected));
  EXPECT_EQ(read<int32_t>(positives, 1)[0], expected_positives);
}

// The records zig/wasmgpu.zig's kernelRecord writes through module-level asm.
TEST_P(ZigKernels, MetadataRecordsDescribeTheParameters) {
  built_kernel(kZig, GetParam());
  expect_window_and_axpy_records(load(kZig).kernel_metadata());
}

INSTANTIATE_TEST_SUITE_P(OptLevels, ZigKernels, ::testing::Values("Debug", "ReleaseSmall"),
                         [](const auto& info) { return std::string(info.param); });

// Debug keeps Zig's safety checks: an overflowing multiplication traps through
// zig/wasmgpu.zig's panic, reported with the lowest invocation that hit it.
class ZigDebug : public EndToEnd {};

TEST_P(ZigDebug, CheckedArithmeticTrapsOnOverflow) {
  built_kernel(kZig, GetParam());
  constexpr uint32_t n = 200;
  std::vector<int32_t> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = int32_t(i * 1000) - 100000;
  runtime::Buffer xs = buffer_with(x), out = buffer(4 * n);
  Status launched = kernel(kZig, "triple").launch(n, 64, {xs, out, n});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = x[i] * 3;
  EXPECT_TRUE(same_values(read<int32_t>(out, n), expected));
  x[150] = INT32_MAX / 2, x[70] = INT32_MIN / 2;
  ASSERT_TRUE(xs.write(x).ok());
  launched = kernel(kZig, "triple").launch(n, 64, {xs, out, n});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("unreachable executed at invocation 70 (2 invocations trapped)"),
            std::string::npos)
      << launched.error().message;
}

INSTANTIATE_TEST_SUITE_P(OptLevels, ZigDebug, ::testing::Values("Debug"),
                         [](const auto& info) { return std::string(info.param); });

// ---- Emscripten (emcc -sSTANDALONE_WASM --no-entry, with wasmgpu.h) ----

class EmscriptenKernels : public EndToEnd {};

TEST_P(EmscriptenKernels, StructCopiesALoopAndAnAtomicMatchTheCpu) {
  built_kernel(kEmscripten, GetParam());
  constexpr int32_t n = 250, width = 6, limit = 1500;
  std::vector<uint32_t> words = random_words(n, 7);
  std::vector<int32_t> x(n);
  for (int32_t i = 0; i < n; ++i) x[i] = int32_t(words[i] % 2001) - 1000;
  runtime::Buffer xs = buffer_with(x), range = buffer(4 * n), over = buffer_with(std::vector<int32_t>{0});
  Status launched = kernel(kEmscripten, "spread").launch(n, 64, {xs, range, n, width, limit, over});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int32_t> expected(n);
  int32_t expected_over = 0;
  for (int32_t i = 0; i < n; ++i) {
    auto [lo, hi] = std::minmax_element(x.begin() + i, x.begin() + std::min(n, i + width));
    expected[i] = *hi - *lo;
    expected_over += expected[i] > limit;
  }
  EXPECT_TRUE(same_values(read<int32_t>(range, n), expected));
  EXPECT_EQ(read<int32_t>(over, 1)[0], expected_over);
}

// emcc's runtime exports stackSave, stackRestore (one i32, no result: the
// shape of a kernel), stackAlloc, _initialize and, at -O0, emscripten_stack_*:
// none of them is a kernel, for the runtime nor for `wasmgpu inspect`.
TEST_P(EmscriptenKernels, RuntimeHelperExportsAreNotKernels) {
  const std::string path = built_kernel(kEmscripten, GetParam());
  auto refused = load(kEmscripten).kernel("stackRestore");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("Emscripten's stack helper"), std::string::npos) << refused.error().message;
  std::string command = "'" + std::string(WASMGPU_CLI_PATH) + "' inspect '" + path + "' 2>&1", output;
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 4096> chunk;
  for (size_t got; (got = fread(chunk.data(), 1, chunk.size(), pipe)) > 0;) output.append(chunk.data(), got);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  // Each export's line is followed by what it is: only spread is a kernel.
  std::vector<std::string> kernels;
  std::string previous_func;
  size_t at = 0;
  for (size_t end; (end = output.find('\n', at)) != std::string::npos; at = end + 1) {
    std::string line = output.substr(at, end - at);
    if (line.starts_with("  func ")) previous_func = line.substr(7, line.find(' ', 7) - 7);
    if (line.starts_with("    kernel: ") || line.starts_with("    kernel, ")) kernels.push_back(previous_func);
  }
  EXPECT_EQ(kernels, std::vector<std::string>{"spread"}) << output;
  EXPECT_NE(output.find("'stackRestore' is Emscripten's stack helper (sets the stack pointer), not a kernel"),
            std::string::npos)
      << output;
}

INSTANTIATE_TEST_SUITE_P(OptLevels, EmscriptenKernels, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
