// End-to-end test support: a Vulkan device under the validation layer, kernel
// modules built at -O0 and -O2, and byte-exact comparison with native runs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#ifdef WASMGPU_E2E_ON_DEVICE_INTERFACE
// e2e_device_tests: the same tests through the device interface, on the
// device WASMGPU_DEVICE names (the cpu device among them).
#include "on_device_interface/runtime_shim.h"
#else
#include "runtime/device.h"
#include "runtime/instance.h"
#include "runtime/module.h"
#endif

namespace wasmgpu::e2e {

// Where the test kernels (<name>.<opt>.wasm) are: $WASMGPU_TEST_KERNELS_DIR, or
// the build tree's tests/kernels (the variable lets a copied build run elsewhere).
std::string kernels_dir();

// The optimisation levels every kernel is compiled at.
inline const char* const kOptLevels[] = {"O0", "O2"};
// The O2 kernels compiled in fast float mode, for suites that check the
// memory paths in both float modes.
inline const char* const kFastModeLevels[] = {"O2-fast"};

// Each test runs once per optimisation level (the test parameter).
class EndToEnd : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Loads tests/kernels/<name>.c as compiled at this test's optimisation level.
  runtime::Module& load(const std::string& name);
  runtime::Kernel& kernel(const std::string& module, const std::string& export_name);
  runtime::Buffer buffer(uint64_t size);
  template <class T>
  runtime::Buffer buffer_with(const std::vector<T>& data) {
    runtime::Buffer b = buffer(data.size() * sizeof(T));
    Status written = b.write(data);
    EXPECT_TRUE(written.ok()) << (written.ok() ? "" : written.error().message);
    return b;
  }
  template <class T>
  std::vector<T> read(const runtime::Buffer& b, size_t count) {
    auto values = b.read_as<T>(count);
    EXPECT_TRUE(values.ok()) << (values.ok() ? "" : values.error().message);
    return values.ok() ? std::move(values).value() : std::vector<T>(count);
  }

  std::optional<runtime::Instance> instance_;
  std::optional<runtime::Device> device_;
  std::vector<std::pair<std::string, runtime::Module>> modules_;
};

// Random words with the edge values mixed in (0, 1, -1, the extremes).
std::vector<uint32_t> random_words(size_t count, uint32_t seed);
std::vector<uint64_t> random_dwords(size_t count, uint32_t seed);

// Compares two arrays element by element; reports the first few differences.
template <class T>
::testing::AssertionResult same_values(const std::vector<T>& gpu, const std::vector<T>& native, size_t per_item = 1) {
  if (gpu.size() != native.size()) return ::testing::AssertionFailure() << "size differs";
  size_t reported = 0, differing = 0;
  auto failure = ::testing::AssertionFailure();
  for (size_t i = 0; i < gpu.size(); ++i) {
    if (std::memcmp(&gpu[i], &native[i], sizeof(T)) == 0) continue;
    ++differing;
    if (reported++ < 8)
      failure << "\n  item " << i / per_item << " result " << i % per_item << ": gpu " << +gpu[i] << ", native "
              << +native[i];
  }
  if (!differing) return ::testing::AssertionSuccess();
  return failure << "\n  " << differing << " of " << gpu.size() << " values differ";
}

}  // namespace wasmgpu::e2e
