// C kernels compiled to wasm at -O0 and -O2, run on the Vulkan device, and
// compared with the same C compiled natively: bit-exact.
#include <cmath>

#include "e2e_support.h"

extern "C" {
void integer_ops(int i, const uint32_t* a32, const uint64_t* a64, uint64_t* out);
void float_ops(int i, const float* f, const double* d, const int32_t* n, uint64_t* out);
void control_flow(int i, const uint32_t* in, uint32_t* out);
void memory_ops(int i, const uint8_t* bytes, const void* records, uint8_t* out, uint32_t* words);
}

namespace wasmgpu::e2e {
namespace {

TEST_P(EndToEnd, IntegerOpsMatchNative) {
  constexpr uint32_t n = 512, per_item = 48;
  std::vector<uint32_t> a32 = random_words(2 * n, 1);
  std::vector<uint64_t> a64 = random_dwords(2 * n, 2);
  runtime::Buffer b32 = buffer_with(a32), b64 = buffer_with(a64), out = buffer(8ull * n * per_item);
  ASSERT_TRUE(out.fill(0xDEADBEEF).ok());
  Status launched = kernel("integer_ops", "integer_ops").launch(n, 64, {b32, b64, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint64_t> native(size_t(n) * per_item);
  for (uint32_t i = 0; i < n; ++i) integer_ops(int(i), a32.data(), a64.data(), native.data());
  EXPECT_TRUE(same_values(read<uint64_t>(out, native.size()), native, per_item));
}

// Finite, normal values (devices may flush subnormals; NaN payloads are not
// specified bit for bit by wasm), with signed zeros, integers and halves.
std::vector<float> test_floats(size_t count, uint32_t seed) {
  static const float kEdges[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f,  -0.5f,           1.5f,
                                 2.5f, -2.5f, 3.0f, 1e6f,  -1e6f, 1.17549435e-38f, 3.0e38f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-1e6f, 1e6f), narrow(-8.0f, 8.0f);
  std::vector<float> values(count);
  for (auto& v : values) {
    uint32_t r = rng();
    v = r % 5 == 0 ? kEdges[(r >> 8) % std::size(kEdges)] : r % 5 == 1 ? narrow(rng) : wide(rng);
  }
  return values;
}

std::vector<double> test_doubles(size_t count, uint32_t seed) {
  static const double kEdges[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 4.5, 1e12, -1e12, 2.2250738585072014e-308};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> wide(-1e12, 1e12), narrow(-8.0, 8.0);
  std::vector<double> values(count);
  for (auto& v : values) {
    uint64_t r = rng();
    v = r % 5 == 0 ? kEdges[(r >> 8) % std::size(kEdges)] : r % 5 == 1 ? narrow(rng) : wide(rng);
  }
  return values;
}

TEST_P(EndToEnd, FloatOpsMatchNative) {
  constexpr uint32_t n = 512, per_item = 32;
  std::vector<float> f = test_floats(2 * n, 3);
  std::vector<double> d = test_doubles(2 * n, 4);
  std::vector<int32_t> k(n);
  std::mt19937 rng(5);
  for (auto& v : k) v = int32_t(rng());
  // Products of two values must stay finite: |a*b| < 3.4e38 for the wide range.
  for (size_t i = 0; i < f.size(); i += 2)
    if (std::fabs(f[i]) > 1e7f) f[i + 1] = 0.5f;
  runtime::Buffer fb = buffer_with(f), db = buffer_with(d), kb = buffer_with(k), out = buffer(8ull * n * per_item);
  Status launched = kernel("float_ops", "float_ops").launch(n, 32, {fb, db, kb, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint64_t> native(size_t(n) * per_item);
  for (uint32_t i = 0; i < n; ++i) float_ops(int(i), f.data(), d.data(), k.data(), native.data());
  EXPECT_TRUE(same_values(read<uint64_t>(out, native.size()), native, per_item));
}

TEST_P(EndToEnd, ControlFlowMatchesNative) {
  constexpr uint32_t n = 1000, per_item = 6;
  std::vector<uint32_t> in = random_words(n, 6);
  runtime::Buffer ib = buffer_with(in), out = buffer(4ull * n * per_item);
  Status launched = kernel("control_flow", "control_flow").launch(n, 64, {ib, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint32_t> native(size_t(n) * per_item);
  for (uint32_t i = 0; i < n; ++i) control_flow(int(i), in.data(), native.data());
  EXPECT_TRUE(same_values(read<uint32_t>(out, native.size()), native, per_item));
}

TEST_P(EndToEnd, MemoryOpsMatchNative) {
  constexpr uint32_t n = 300, record_size = 19;
  std::vector<uint8_t> bytes(3 * n + 16);
  std::vector<uint8_t> records(size_t(n) * record_size);
  std::mt19937 rng(7);
  for (auto& b : bytes) b = uint8_t(rng());
  for (auto& b : records) b = uint8_t(rng());
  // Keep the floats in the records finite and normal.
  for (uint32_t i = 0; i < n; ++i) {
    float value = float(int(rng() % 20001) - 10000) * 0.125f;
    std::memcpy(&records[size_t(i) * record_size + 15], &value, 4);
  }
  runtime::Buffer bb = buffer_with(bytes), rb = buffer_with(records);
  runtime::Buffer out = buffer(64ull * n), words = buffer(16ull * n);
  ASSERT_TRUE(out.fill(0).ok());
  ASSERT_TRUE(words.fill(0).ok());
  Status launched = kernel("memory_ops", "memory_ops").launch(n, 16, {bb, rb, out, words});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint8_t> native_out(64ull * n, 0);
  std::vector<uint32_t> native_words(4ull * n, 0);
  for (uint32_t i = 0; i < n; ++i)
    memory_ops(int(i), bytes.data(), records.data(), native_out.data(), native_words.data());
  EXPECT_TRUE(same_values(read<uint8_t>(out, native_out.size()), native_out, 64));
  EXPECT_TRUE(same_values(read<uint32_t>(words, native_words.size()), native_words, 4));
}

// Launches larger than one dispatch: maxComputeWorkGroupCount (65535 on
// lavapipe) times a workgroup size of 1 is exceeded, so the runtime splits it.
TEST_P(EndToEnd, LaunchBeyondTheWorkgroupCountLimitIsSplit) {
  const uint32_t n = 70000;
  std::vector<uint32_t> in = random_words(n, 8);
  runtime::Buffer ib = buffer_with(in), out = buffer(4ull * n * 6);
  Status launched = kernel("control_flow", "control_flow").launch(n, 1, {ib, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint32_t> native(size_t(n) * 6);
  for (uint32_t i = 0; i < n; ++i) control_flow(int(i), in.data(), native.data());
  EXPECT_TRUE(same_values(read<uint32_t>(out, native.size()), native, 6));
}

INSTANTIATE_TEST_SUITE_P(OptLevels, EndToEnd, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
