#include "e2e_support.h"

#include <fstream>
#include <iterator>

#include "support/environment.h"

namespace wasmgpu::e2e {

std::string kernels_dir() {
  return environment::get_nonempty("WASMGPU_TEST_KERNELS_DIR").value_or(WASMGPU_TEST_KERNELS_DIR);
}

void EndToEnd::SetUp() {
  // Validation follows WASMGPU_VALIDATION, which CTest sets for every test.
  auto instance = runtime::Instance::create();
  ASSERT_TRUE(instance.ok()) << instance.error().message;
  instance_.emplace(std::move(instance).value());
  auto device = runtime::Device::create(*instance_);
  ASSERT_TRUE(device.ok()) << device.error().message;
  device_.emplace(std::move(device).value());
}

void EndToEnd::TearDown() {
  modules_.clear();
  device_.reset();
  if (instance_) {
    auto messages = instance_->validation_messages();
    EXPECT_TRUE(messages.empty()) << messages.size()
                                  << " validation message(s), first: " << (messages.empty() ? "" : messages.front());
  }
  instance_.reset();
}

runtime::Module& EndToEnd::load(const std::string& name) {
  for (auto& [loaded, module] : modules_)
    if (loaded == name) return module;
  // "O2-fast": the O2 kernel compiled in fast float mode (kFastModeLevels).
  std::string level = GetParam();
  spirv::CompileOptions options;
  if (level.ends_with("-fast")) {
    level.resize(level.size() - 5);
    options.float_mode = spirv::FloatMode::Fast;
  }
  std::string path = kernels_dir() + "/" + name + "." + level + ".wasm";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing " << path;
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto module = runtime::Module::load(*device_, bytes, options);
  if (!module.ok()) {
    ADD_FAILURE() << path << ": " << module.error().to_string();
    std::abort();
  }
  modules_.emplace_back(name, std::move(module).value());
  return modules_.back().second;
}

runtime::Kernel& EndToEnd::kernel(const std::string& module, const std::string& export_name) {
  auto kernel = load(module).kernel(export_name);
  if (!kernel.ok()) {
    ADD_FAILURE() << module << "." << export_name << ": " << kernel.error().to_string();
    std::abort();
  }
  return **kernel;
}

runtime::Buffer EndToEnd::buffer(uint64_t size) {
  auto b = device_->create_buffer(size);
  if (!b.ok()) {
    ADD_FAILURE() << b.error().message;
    std::abort();
  }
  return std::move(b).value();
}

std::vector<uint32_t> random_words(size_t count, uint32_t seed) {
  static const uint32_t kEdges[] = {0, 1, 2, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 31, 32, 63, 64, 0xFFu, 0x100u};
  std::mt19937 rng(seed);
  std::vector<uint32_t> words(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t r = rng();
    switch (r % 4) {
      case 0: words[i] = kEdges[(r >> 8) % std::size(kEdges)]; break;
      case 1: words[i] = rng() >> (rng() % 32); break;  // small magnitudes
      default: words[i] = rng(); break;
    }
  }
  return words;
}

std::vector<uint64_t> random_dwords(size_t count, uint32_t seed) {
  static const uint64_t kEdges[] = {0, 1, ~0ull, 1ull << 63, (1ull << 63) - 1, 63, 64, 0xFFFFFFFFull, 1ull << 32};
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> words(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t r = rng();
    switch (r % 4) {
      case 0: words[i] = kEdges[(r >> 8) % std::size(kEdges)]; break;
      case 1: words[i] = rng() >> (rng() % 64); break;
      default: words[i] = rng(); break;
    }
  }
  return words;
}

}  // namespace wasmgpu::e2e
