// Test-only helpers of the api tests: a fixture that opens a device through
// the public API and fails the test on any validation message, and the paths
// of the test kernels compiled at build time (testdata/*.c).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "wasmgpu/wasmgpu.hpp"

namespace wasmgpu::testing {

// The wasm file built from testdata/<name>.c.
std::string kernel_path(const std::string& name);

// Runs `body` and returns the Exception it threw; fails the test when it
// throws nothing or throws something else.
template <class F>
Exception expect_exception(F&& body) {
  try {
    body();
  } catch (const Exception& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-wasmgpu exception: " << e.what();
    return Exception(ErrorKind::Vulkan, e.what());
  }
  ADD_FAILURE() << "threw nothing";
  return Exception(ErrorKind::Vulkan, "<nothing thrown>");
}

// A fresh cache directory, removed with everything in it at the end: what a
// test caches (forced probe results, entries it counts) reaches no other
// test's device. `dir` is empty when it could not be made.
struct ScratchCache {
  std::filesystem::path dir;
  ScratchCache();
  ~ScratchCache();
  ScratchCache(const ScratchCache&) = delete;
  ScratchCache& operator=(const ScratchCache&) = delete;
  // A device (the default one) whose caches live in `dir`.
  Device open() const;
};

// Fails the test on any validation message reported while it ran.
class ValidatedTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
};

// A device and testdata/kernels.c loaded on it, under ValidatedTest.
class ApiTest : public ValidatedTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  std::optional<Device> device;
  std::optional<Module> module;  // testdata/kernels.c on `device`
};

}  // namespace wasmgpu::testing
