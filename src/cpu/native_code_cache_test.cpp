// The cpu device's native code in the on-disk cache: a second device with the
// same cache directory links the cached object instead of compiling, and
// gives the same results; a damaged entry is recompiled and rewritten.
#include "cpu/native_code_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "wasmgpu/wasmgpu.hpp"

namespace wasmgpu {
namespace {

namespace fs = std::filesystem;

class NativeCodeCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wasmgpu_native_cache_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Device open_cpu() const {
    DeviceOptions options;
    options.name = "cpu";
    options.cache_directory = dir_.string();
    return Device::open(options);
  }
  // saxpy on a fresh cpu device: its output and the device's cache counts.
  std::vector<float> run_saxpy(CacheStats* stats) const {
    Device device = open_cpu();
    Module module = device.load_file(std::string(WASMGPU_TEST_DATA_DIR) + "/../examples/saxpy.wasm");
    std::vector<float> x(1000), y(1000);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = float(i) * 0.25f - 7.0f;
      y[i] = 1.0f / float(i + 3);
    }
    Buffer<float> xb = device.upload(x), yb = device.upload(y);
    module.kernel("saxpy")(1000, 1.5f, xb, yb);
    *stats = device.cache_stats();
    return yb.read();
  }
  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    if (fs::exists(dir_ / "native"))
      for (const auto& entry : fs::directory_iterator(dir_ / "native")) out.push_back(entry.path());
    return out;
  }

  fs::path dir_;
};

TEST_F(NativeCodeCacheTest, ASecondCompileOfAKernelHitsTheCache) {
  CacheStats cold, warm;
  const std::vector<float> first = run_saxpy(&cold);
  EXPECT_EQ(cold.directory, dir_.string());
  EXPECT_EQ(cold.spirv_compiles, 1u);
  EXPECT_EQ(cold.spirv_cache_hits, 0u);
  ASSERT_EQ(entries().size(), 1u);
  const std::vector<float> second = run_saxpy(&warm);
  EXPECT_EQ(warm.spirv_compiles, 0u);
  EXPECT_EQ(warm.spirv_cache_hits, 1u);
  EXPECT_EQ(first, second);
}

TEST_F(NativeCodeCacheTest, CallsAreCachedToo) {
  for (int round = 0; round < 2; ++round) {
    Device device = open_cpu();
    Module functions = device.load_file(std::string(WASMGPU_API_KERNELS_DIR) + "/functions.wasm");
    const std::vector<CallResult> sums =
        functions.call("add", std::vector<std::vector<Value>>{{Value::i32(40), Value::i32(2)}});
    ASSERT_EQ(sums.size(), 1u);
    EXPECT_EQ(sums[0].values, std::vector<Value>{Value::i32(42)});
    const CacheStats stats = device.cache_stats();
    EXPECT_EQ(stats.spirv_compiles, round == 0 ? 1u : 0u) << "round " << round;
    EXPECT_EQ(stats.spirv_cache_hits, round == 0 ? 0u : 1u) << "round " << round;
  }
}

TEST_F(NativeCodeCacheTest, ADamagedEntryIsRecompiledAndRewritten) {
  CacheStats cold, damaged, repaired;
  const std::vector<float> first = run_saxpy(&cold);
  ASSERT_EQ(entries().size(), 1u);
  const fs::path entry = entries()[0];
  {
    std::fstream file(entry, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-8, std::ios::end);
    file.write("garbage!", 8);
  }
  EXPECT_EQ(run_saxpy(&damaged), first);
  EXPECT_EQ(damaged.spirv_cache_corrupt, 1u);
  EXPECT_EQ(damaged.spirv_compiles, 1u);
  EXPECT_EQ(run_saxpy(&repaired), first);
  EXPECT_EQ(repaired.spirv_cache_hits, 1u);
  EXPECT_EQ(repaired.spirv_compiles, 0u);
}

TEST_F(NativeCodeCacheTest, TheKeyCoversOptionsKindAndNames) {
  const Sha256Digest wasm{};
  const std::string saxpy[] = {"saxpy"}, other[] = {"other"};
  spirv::CompileOptions exact, fast;
  fast.float_mode = frontend::FloatMode::Fast;
  const Sha256Digest base = cpu::NativeCodeCache::key("kernel", wasm, exact, saxpy);
  EXPECT_EQ(base, cpu::NativeCodeCache::key("kernel", wasm, exact, saxpy));
  EXPECT_NE(base, cpu::NativeCodeCache::key("kernel", wasm, fast, saxpy));
  EXPECT_NE(base, cpu::NativeCodeCache::key("calls", wasm, exact, saxpy));
  EXPECT_NE(base, cpu::NativeCodeCache::key("kernel", wasm, exact, other));
  Sha256Digest changed{};
  changed[0] = 1;
  EXPECT_NE(base, cpu::NativeCodeCache::key("kernel", changed, exact, saxpy));
}

}  // namespace
}  // namespace wasmgpu
