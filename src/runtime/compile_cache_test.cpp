// The compiled-SPIR-V cache: its entry format and key (no device), and on a
// device: a module loaded again compiles nothing, damaged entries are
// recompiled and rewritten, and Devices in several threads writing the same
// entries leave only valid ones.
#include "runtime/test_support.h"
#include "runtime/compile_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "runtime/device.h"
#include "runtime/instance.h"
#include "runtime/module.h"
#include "runtime/pipeline_cache.h"

namespace wasmgpu::runtime {
namespace {

namespace fs = std::filesystem;

spirv::KernelInfo sample_info() {
  spirv::KernelInfo info;
  info.export_name = "k";
  info.function_index = 7;
  info.params = {wasm::ValType::I32, wasm::ValType::F64, wasm::ValType::I64};
  info.memory_bytes = 1ull << 33;
  info.stack_hi = 65536;
  info.stack_window_lo = 60000;
  info.stack_slot_size = 4096;
  info.uses_float64 = true;
  info.uses_int8_storage = true;
  info.shared_memory_bytes = 1024;
  info.uses_barriers = true;
  info.uses_int64 = false;
  info.float64_function = "f";
  info.uses_instance_state = true;
  info.float_mode = spirv::FloatMode::Fast;
  info.call_stack_bytes = 12345;
  info.compiled_functions = 3;
  info.memory_access_paths = {5, 6, 7};
  return info;
}

void expect_same(const spirv::KernelInfo& a, const spirv::KernelInfo& b) {
  EXPECT_EQ(a.export_name, b.export_name);
  EXPECT_EQ(a.function_index, b.function_index);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.memory_bytes, b.memory_bytes);
  EXPECT_EQ(a.stack_hi, b.stack_hi);
  EXPECT_EQ(a.stack_window_lo, b.stack_window_lo);
  EXPECT_EQ(a.stack_slot_size, b.stack_slot_size);
  EXPECT_EQ(a.uses_float64, b.uses_float64);
  EXPECT_EQ(a.uses_int8_storage, b.uses_int8_storage);
  EXPECT_EQ(a.shared_memory_bytes, b.shared_memory_bytes);
  EXPECT_EQ(a.uses_barriers, b.uses_barriers);
  EXPECT_EQ(a.uses_int64, b.uses_int64);
  EXPECT_EQ(a.float64_function, b.float64_function);
  EXPECT_EQ(a.uses_instance_state, b.uses_instance_state);
  EXPECT_EQ(a.float_mode, b.float_mode);
  EXPECT_EQ(a.call_stack_bytes, b.call_stack_bytes);
  EXPECT_EQ(a.compiled_functions, b.compiled_functions);
  EXPECT_EQ(a.memory_access_paths.direct, b.memory_access_paths.direct);
  EXPECT_EQ(a.memory_access_paths.bounds_checked, b.memory_access_paths.bounds_checked);
  EXPECT_EQ(a.memory_access_paths.translated, b.memory_access_paths.translated);
}

std::vector<uint32_t> sample_words() { return {0x07230203, 0x00010500, 0, 100, 0, 42}; }

TEST(CompileCacheFormat, KernelRoundTripsEveryField) {
  spirv::CompiledKernel kernel{sample_words(), sample_info()};
  const std::vector<uint8_t> payload = serialize(kernel);
  std::optional<spirv::CompiledKernel> back = deserialize_kernel(payload);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->words, kernel.words);
  expect_same(back->info, kernel.info);
}

TEST(CompileCacheFormat, CallsAndCatalogueRoundTrip) {
  spirv::CompiledCalls calls;
  calls.words = sample_words();
  calls.info = sample_info();
  calls.calls = {spirv::CallInfo{"add", 3, {wasm::ValType::I32, wasm::ValType::I32}, {wasm::ValType::I32}, false},
                 spirv::CallInfo{"store", 4, {wasm::ValType::I64}, {}, true}};
  calls.call_record_size = 24;
  calls.result_record_size = 16;
  std::optional<spirv::CompiledCalls> back = deserialize_calls(serialize(calls));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->words, calls.words);
  expect_same(back->info, calls.info);
  ASSERT_EQ(back->calls.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back->calls[i].export_name, calls.calls[i].export_name);
    EXPECT_EQ(back->calls[i].function_index, calls.calls[i].function_index);
    EXPECT_EQ(back->calls[i].params, calls.calls[i].params);
    EXPECT_EQ(back->calls[i].results, calls.calls[i].results);
    EXPECT_EQ(back->calls[i].has_side_effects, calls.calls[i].has_side_effects);
  }
  EXPECT_EQ(back->call_record_size, 24u);
  EXPECT_EQ(back->result_record_size, 16u);

  CallCatalogueData catalogue{calls.calls, {{"v", "its signature has a v128"}, {"imp", "re-export"}}};
  std::optional<CallCatalogueData> cat = deserialize_catalogue(serialize(catalogue));
  ASSERT_TRUE(cat);
  ASSERT_EQ(cat->calls.size(), 2u);
  EXPECT_EQ(cat->calls[1].export_name, "store");
  EXPECT_EQ(cat->refused, catalogue.refused);
}

// Decoding is strict on its own, below the entry checksum: a payload that is
// cut short, too long or holds impossible values is refused.
TEST(CompileCacheFormat, MalformedPayloadsAreRefused) {
  const std::vector<uint8_t> payload = serialize(spirv::CompiledKernel{sample_words(), sample_info()});
  for (size_t n = 0; n < payload.size(); ++n)
    EXPECT_FALSE(deserialize_kernel(std::span<const uint8_t>(payload.data(), n))) << n << " bytes";
  std::vector<uint8_t> longer = payload;
  longer.push_back(0);
  EXPECT_FALSE(deserialize_kernel(longer));
  std::vector<uint8_t> not_spirv = payload;
  not_spirv[8] ^= 1;  // after the u64 word count: the magic number
  EXPECT_FALSE(deserialize_kernel(not_spirv));
  // A huge vector count must fail, not allocate.
  std::vector<uint8_t> huge = payload;
  huge[7] = 0x7f;
  EXPECT_FALSE(deserialize_kernel(huge));
  // float_mode (an enum) out of range: re-encode with a patched value.
  spirv::KernelInfo info = sample_info();
  info.float_mode = spirv::FloatMode(7);
  EXPECT_FALSE(deserialize_kernel(serialize(spirv::CompiledKernel{sample_words(), info})));
  info = sample_info();
  info.params = {wasm::ValType(0x42)};
  EXPECT_FALSE(deserialize_kernel(serialize(spirv::CompiledKernel{sample_words(), info})));
}

// Every input of the key changes it.
TEST(CompileCacheKey, EveryInputChangesTheKey) {
  const Sha256Digest wasm_a = sha256(std::string_view("module a"));
  const Sha256Digest wasm_b = sha256(std::string_view("module b"));
  const std::vector<std::string> k = {"k"}, other = {"other"}, two = {"a", "b"}, swapped = {"b", "a"};
  const spirv::CompileOptions defaults;
  spirv::CompileOptions no_validate, depth, fast;
  no_validate.validate = false;
  depth.max_call_depth = defaults.max_call_depth + 1;
  fast.float_mode = spirv::FloatMode::Fast;

  std::set<std::vector<uint8_t>> option_bytes;
  for (const spirv::CompileOptions* o :
       std::initializer_list<const spirv::CompileOptions*>{&defaults, &no_validate, &depth, &fast})
    option_bytes.insert(compile_options_key_bytes(*o));
  EXPECT_EQ(option_bytes.size(), 4u);

  std::set<Sha256Digest> keys;
  const auto kernel = CacheEntryKind::CompiledKernel;
  keys.insert(compile_cache_key(kernel, wasm_a, defaults, k));
  keys.insert(compile_cache_key(kernel, wasm_b, defaults, k));
  keys.insert(compile_cache_key(kernel, wasm_a, no_validate, k));
  keys.insert(compile_cache_key(kernel, wasm_a, depth, k));
  keys.insert(compile_cache_key(kernel, wasm_a, fast, k));
  keys.insert(compile_cache_key(kernel, wasm_a, defaults, other));
  keys.insert(compile_cache_key(CacheEntryKind::CompiledCalls, wasm_a, defaults, k));
  keys.insert(compile_cache_key(CacheEntryKind::CompiledCalls, wasm_a, defaults, two));
  keys.insert(compile_cache_key(CacheEntryKind::CompiledCalls, wasm_a, defaults, swapped));
  keys.insert(compile_cache_key(CacheEntryKind::CallCatalogue, wasm_a, defaults, {}));
  EXPECT_EQ(keys.size(), 10u);
  // And the same inputs give the same key.
  EXPECT_EQ(compile_cache_key(kernel, wasm_a, fast, k), compile_cache_key(kernel, wasm_a, fast, k));
}

TEST(CompileCacheKey, FingerprintNamesVersionAndSources) {
  const std::string& fingerprint = compiler_fingerprint();
  // "<version>+<64 hex digits>+f<format>+<SPIRV-Tools version>"
  const size_t plus = fingerprint.find('+');
  ASSERT_NE(plus, std::string::npos) << fingerprint;
  EXPECT_GT(plus, 0u);
  const std::string hash = fingerprint.substr(plus + 1, 64);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos) << fingerprint;
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_NE(fingerprint.find("+f" + std::to_string(kCompileCacheFormat) + "+"), std::string::npos) << fingerprint;
}

// ----------------------------------------------------------- on a device

using testing::wat_to_wasm;

// A kernel (out[i] = i * i + k) and two callable functions.
const char* kModule = R"((module
  (memory 1)
  (func (export "squares") (param $i i32) (param $k i32) (param $out i32)
    (i32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
               (i32.add (i32.mul (local.get $i) (local.get $i)) (local.get $k))))
  (func (export "mix") (param i32 i32) (result i32)
    (i32.xor (i32.mul (local.get 0) (i32.const 31)) (local.get 1)))
  (func (export "half") (param f64) (result f64) (f64.mul (local.get 0) (f64.const 0.5)))
))";

uint32_t mix(uint32_t a, uint32_t b) { return (a * 31) ^ b; }

// Loads the module, launches the kernel and calls both functions in one
// launch, checking every result against the CPU.
void exercise(Device& device, const std::vector<uint8_t>& wasm, const spirv::CompileOptions& compile, int32_t k) {
  auto module = Module::load(device, wasm, compile);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const uint32_t n = 100;
  auto out = device.create_buffer(4 * n);
  ASSERT_TRUE(out.ok());
  Status launched = module->launch("squares", n, 32, {k, *out});
  ASSERT_TRUE(launched.ok()) << launched.error().to_string();
  auto values = out->read_as<uint32_t>(n);
  ASSERT_TRUE(values.ok());
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ((*values)[i], i * i + uint32_t(k)) << i;

  std::vector<CallRequest> calls;
  for (uint32_t i = 0; i < 20; ++i) calls.push_back(CallRequest{"mix", {Value::i32(i), Value::i32(i + 3)}});
  calls.push_back(CallRequest{"half", {Value::f64(3.0)}});
  auto results = module->call(calls);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  for (uint32_t i = 0; i < 20; ++i) {
    ASSERT_EQ((*results)[i].values.size(), 1u);
    EXPECT_EQ((*results)[i].values[0].bits, mix(i, i + 3)) << i;
  }
  double half;
  std::memcpy(&half, &(*results)[20].values[0].bits, 8);
  EXPECT_EQ(half, 1.5);
}

class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("wasmgpu-compile-cache-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(dir);
    wasm = wat_to_wasm(kModule);
    ASSERT_FALSE(wasm.empty());
    auto created = Instance::create();
    ASSERT_TRUE(created.ok()) << created.error().to_string();
    instance.emplace(std::move(created).value());
  }
  void TearDown() override {
    if (instance) {
      EXPECT_EQ(instance->validation_messages(), std::vector<std::string>{});
    }
    instance.reset();
    fs::remove_all(dir);
  }

  DeviceOptions options() const {
    DeviceOptions o;
    o.cache.directory = dir.string();
    return o;
  }

  // On a fresh Device: exercise() then what the caches did.
  CacheStats run_once(const DeviceOptions& device_options, const spirv::CompileOptions& compile = {}) {
    auto device = Device::create(*instance, device_options);
    EXPECT_TRUE(device.ok()) << device.error().to_string();
    if (!device.ok()) return {};
    exercise(*device, wasm, compile, 5);
    return device->cache_stats();  // the Device is destroyed here, saving its pipeline cache
  }

  std::vector<fs::path> entries(const std::string& folder) const {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& file : fs::directory_iterator(dir / folder, ec)) files.push_back(file.path());
    return files;
  }

  fs::path dir;
  std::vector<uint8_t> wasm;
  std::optional<Instance> instance;
};

// Entries written: a kernel, the survey of callable exports, and one call
// shader (for the set {mix, half}).
constexpr uint64_t kEntriesPerRun = 3;

TEST_F(CompileCacheTest, SecondDeviceCompilesNothing) {
  const CacheStats cold = run_once(options());
  EXPECT_EQ(cold.directory, dir.string());
  EXPECT_GE(cold.spirv_compiles, kEntriesPerRun);
  EXPECT_EQ(cold.spirv_cache_hits, 0u);
  EXPECT_EQ(cold.spirv_cache_writes, kEntriesPerRun);
  EXPECT_EQ(cold.cache_write_failures, 0u) << cold.last_write_failure;
  EXPECT_EQ(entries("spirv").size(), kEntriesPerRun);

  const CacheStats warm = run_once(options());
  EXPECT_EQ(warm.spirv_compiles, 0u);
  EXPECT_EQ(warm.spirv_cache_hits, kEntriesPerRun);
  EXPECT_EQ(warm.spirv_cache_misses, 0u);
  EXPECT_EQ(warm.spirv_cache_writes, 0u);
}

TEST_F(CompileCacheTest, OtherCompileOptionsCompileAgain) {
  run_once(options());
  spirv::CompileOptions fast;
  fast.float_mode = spirv::FloatMode::Fast;
  const CacheStats stats = run_once(options(), fast);
  EXPECT_GE(stats.spirv_compiles, kEntriesPerRun);
  EXPECT_EQ(stats.spirv_cache_hits, 0u);
  EXPECT_EQ(entries("spirv").size(), 2 * kEntriesPerRun);
}

// A damaged entry is never used: it is compiled again and rewritten.
TEST_F(CompileCacheTest, DamagedEntriesAreRecompiledAndRewritten) {
  run_once(options());
  std::vector<fs::path> files = entries("spirv");
  ASSERT_EQ(files.size(), kEntriesPerRun);
  // Three kinds of damage: cut short, one flipped bit, emptied.
  fs::resize_file(files[0], fs::file_size(files[0]) / 2);
  {
    std::fstream f(files[1], std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    const char last = char(f.get());
    f.seekp(-1, std::ios::end);
    f.put(char(last ^ 1));
  }
  fs::resize_file(files[2], 0);
  const CacheStats damaged = run_once(options());
  EXPECT_EQ(damaged.spirv_cache_corrupt, kEntriesPerRun);
  EXPECT_EQ(damaged.spirv_cache_hits, 0u);
  EXPECT_GE(damaged.spirv_compiles, kEntriesPerRun);
  EXPECT_EQ(damaged.spirv_cache_writes, kEntriesPerRun);

  const CacheStats repaired = run_once(options());
  EXPECT_EQ(repaired.spirv_compiles, 0u);
  EXPECT_EQ(repaired.spirv_cache_corrupt, 0u);
}

TEST_F(CompileCacheTest, TurnedOffReadsAndWritesNothing) {
  DeviceOptions off = options();
  off.cache.enabled = false;
  const CacheStats stats = run_once(off);
  EXPECT_EQ(stats.directory, "");
  EXPECT_EQ(stats.disabled_reason, "turned off by CacheOptions::enabled");
  EXPECT_GE(stats.spirv_compiles, kEntriesPerRun);
  EXPECT_FALSE(fs::exists(dir));

  setenv("WASMGPU_CACHE", "0", 1);
  const CacheStats env_off = run_once(options());
  unsetenv("WASMGPU_CACHE");
  EXPECT_EQ(env_off.disabled_reason, "turned off by WASMGPU_CACHE=0");
  EXPECT_FALSE(fs::exists(dir));
}

// Devices in several threads (each its own Instance and Device, as separate
// processes would be) compile and write the same entries at once; every entry
// left is valid and a later Device compiles nothing.
TEST_F(CompileCacheTest, ConcurrentWritersLeaveValidEntries) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<CacheStats> stats(kThreads);
  std::vector<std::vector<std::string>> messages(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto own_instance = Instance::create();
      ASSERT_TRUE(own_instance.ok());
      auto device = Device::create(*own_instance, options());
      ASSERT_TRUE(device.ok());
      exercise(*device, wasm, {}, t);
      stats[t] = device->cache_stats();
      messages[t] = own_instance->validation_messages();
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(stats[t].cache_write_failures, 0u) << stats[t].last_write_failure;
    EXPECT_EQ(stats[t].spirv_cache_corrupt, 0u);
    EXPECT_EQ(messages[t], std::vector<std::string>{});
  }
  for (const fs::path& file : entries("spirv")) {
    EXPECT_NE(file.filename().string().rfind(".tmp-", 0), 0u) << "left behind: " << file;
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string stem = file.stem().string();
    bool valid = false;
    for (CacheEntryKind kind :
         {CacheEntryKind::CompiledKernel, CacheEntryKind::CompiledCalls, CacheEntryKind::CallCatalogue}) {
      Sha256Digest key;
      for (size_t i = 0; i < key.size(); ++i) key[i] = uint8_t(std::stoi(stem.substr(2 * i, 2), nullptr, 16));
      valid |= open_cache_entry(kind, key, bytes).has_value();
    }
    EXPECT_TRUE(valid) << file;
  }
  const CacheStats after = run_once(options());
  EXPECT_EQ(after.spirv_compiles, 0u);
}

}  // namespace
}  // namespace wasmgpu::runtime
