// Implementation of test_support.h (named *_test.cpp: built into api_tests
// only).
#include "api/test_support.h"

#include <stdlib.h>

#include <system_error>

namespace wasmgpu::testing {

std::string kernel_path(const std::string& name) { return std::string(WASMGPU_API_KERNELS_DIR) + "/" + name + ".wasm"; }

ScratchCache::ScratchCache() {
  std::string pattern = (std::filesystem::temp_directory_path() / "wasmgpu-test-cache-XXXXXX").string();
  if (::mkdtemp(pattern.data())) dir = pattern;
}

ScratchCache::~ScratchCache() {
  std::error_code ec;
  if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

Device ScratchCache::open() const {
  DeviceOptions options;
  options.cache_directory = dir.string();
  return Device::open(options);
}

void ValidatedTest::SetUp() {
  // Messages of an earlier test were reported there.
  clear_validation_messages();
}

void ValidatedTest::TearDown() {
  for (const std::string& message : validation_messages()) ADD_FAILURE() << "validation: " << message;
  clear_validation_messages();
}

void ApiTest::SetUp() {
  ValidatedTest::SetUp();
  device.emplace(Device::open());
  module.emplace(device->load_file(kernel_path("kernels")));
}

void ApiTest::TearDown() {
  module.reset();
  device.reset();  // destruction messages count too
  ValidatedTest::TearDown();
}

}  // namespace wasmgpu::testing
