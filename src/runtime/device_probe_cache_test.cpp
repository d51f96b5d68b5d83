// The device probe's cache entry: keyed by device, driver and host CPU
// features; read back as written; damaged entries are ignored.
#include "runtime/device_probe_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/device_state.h"
#include "runtime/host_cpu.h"
#include "runtime/module.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

namespace fs = std::filesystem;

class DeviceProbeCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("wasmgpu-probe-cache-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(dir);
    device.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    device.driver_name = "llvmpipe";
    device.driver_info = "Mesa 25.0.7";
    device.driver_version = 100;
    results.properties = {{"f64_subnormals", ProbeRaw::Wrong, true},
                          {"f64_trunc", ProbeRaw::Right, false},
                          {"subgroup_ops", ProbeRaw::Absent, false}};
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path dir;
  DeviceInfo device;
  ProbeResults results;
};

TEST_F(DeviceProbeCacheTest, ReadsBackWhatWasWritten) {
  DiskCache cache(dir, kDefaultCacheMaxBytes);
  EXPECT_FALSE(read_cached_probe(cache, device, "x86_64: fpu sse2 avx2").has_value());
  ASSERT_TRUE(write_cached_probe(cache, device, "x86_64: fpu sse2 avx2", results).ok());
  EXPECT_TRUE(fs::exists(probe_cache_path(cache, device, "x86_64: fpu sse2 avx2")));
  auto read = read_cached_probe(cache, device, "x86_64: fpu sse2 avx2");
  ASSERT_TRUE(read.has_value());
  ASSERT_EQ(read->properties.size(), 3u);
  EXPECT_TRUE(read->wrong("f64_subnormals"));
  EXPECT_TRUE(read->properties[0].forced);
  EXPECT_FALSE(read->wrong("f64_trunc"));
  EXPECT_FALSE(read->wrong("subgroup_ops"));  // absent is not wrong
  EXPECT_EQ(read->properties[2].raw, ProbeRaw::Absent);
  EXPECT_FALSE(read->wrong("no_such_property"));
}

TEST_F(DeviceProbeCacheTest, KeyedByCpuFeaturesDeviceAndDriver) {
  DiskCache cache(dir, kDefaultCacheMaxBytes);
  ASSERT_TRUE(write_cached_probe(cache, device, "x86_64: fpu sse2 avx2", results).ok());
  // Another CPU (the same driver generates other code there): another entry.
  EXPECT_NE(probe_cache_path(cache, device, "x86_64: fpu sse2 avx2"),
            probe_cache_path(cache, device, "x86_64: fpu sse2 avx2 avx512f"));
  EXPECT_FALSE(read_cached_probe(cache, device, "x86_64: fpu sse2 avx2 avx512f").has_value());
  DeviceInfo other_driver = device;
  other_driver.driver_info = "Mesa 25.0.8";
  EXPECT_FALSE(read_cached_probe(cache, other_driver, "x86_64: fpu sse2 avx2").has_value());
  DeviceInfo other_version = device;
  other_version.driver_version = 101;
  EXPECT_FALSE(read_cached_probe(cache, other_version, "x86_64: fpu sse2 avx2").has_value());
  DeviceInfo other_device = device;
  other_device.name = "NVIDIA H200";
  EXPECT_FALSE(read_cached_probe(cache, other_device, "x86_64: fpu sse2 avx2").has_value());
  DeviceInfo hidden_f64 = device;  // WASMGPU_HIDE_FEATURES=float64: its probe ran no f64 case
  hidden_f64.features.shader_float64 = !device.features.shader_float64;
  EXPECT_FALSE(read_cached_probe(cache, hidden_f64, "x86_64: fpu sse2 avx2").has_value());
  EXPECT_TRUE(read_cached_probe(cache, device, "x86_64: fpu sse2 avx2").has_value());
}

TEST_F(DeviceProbeCacheTest, DamagedEntriesAreIgnored) {
  DiskCache cache(dir, kDefaultCacheMaxBytes);
  ASSERT_TRUE(write_cached_probe(cache, device, "cpu", results).ok());
  const fs::path path = probe_cache_path(cache, device, "cpu");
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-2, std::ios::end);
    file.put('x');
  }
  EXPECT_FALSE(read_cached_probe(cache, device, "cpu").has_value());
  EXPECT_FALSE(
      decode_probe_results(std::vector<uint8_t>{'f', ' ', 'w', 'r', 'o', 'n', 'g'}).has_value());  // no newline
  const std::string bad = "f64_trunc maybe\n";
  EXPECT_FALSE(decode_probe_results(std::vector<uint8_t>(bad.begin(), bad.end())).has_value());
}

TEST(HostCpu, FeaturesNameTheMachineAndItsFlags) {
  const std::string& features = host_cpu_features();
  EXPECT_NE(features.find(": "), std::string::npos) << features;
#if defined(__x86_64__)
  EXPECT_TRUE(features.starts_with("x86_64: ")) << features;
  EXPECT_NE(features.find(" sse2"), std::string::npos) << features;  // every x86-64 CPU has it
#endif
}

// A Device whose cache directory holds a probe entry for it on this host.
class CachedProbeTest : public testing::VulkanTest {
 protected:
  DeviceOptions device_options() const override {
    DeviceOptions o;
    o.cache.directory = dir.string();
    return o;
  }
  void TearDown() override {
    VulkanTest::TearDown();
    fs::remove_all(dir);
  }
  void cache(std::vector<ProbedProperty> properties) {
    ProbeResults results;
    results.properties = std::move(properties);
    ASSERT_TRUE(write_cached_probe(*device->state().disk_cache, device->info(), host_cpu_features(), results).ok());
  }

  fs::path dir = fs::temp_directory_path() / ("wasmgpu-cached-probe-" + std::to_string(getpid()));
};

constexpr const char* kBarrierModule = R"((module
  (import "wasmgpu" "barrier" (func $barrier))
  (func (export "with_barrier") (param i32) call $barrier)
  (func (export "f64_mul") (param f64 f64) (result f64) (f64.mul (local.get 0) (local.get 1))))
)";

TEST_F(CachedProbeTest, ModulesAreRoutedAndRefusedByTheCachedProbe) {
  const std::vector<uint8_t> wasm = testing::wat_to_wasm(kBarrierModule);
  ASSERT_FALSE(wasm.empty());
  {
    auto plain = Module::load(*device, wasm);
    ASSERT_TRUE(plain.ok()) << plain.error().to_string();
    EXPECT_EQ(plain->compile_options().f64_subnormals_native, device->info().features.denorm_preserve_f64)
        << "no probe cached: native f64 subnormals only where the device promises them";
    EXPECT_TRUE(plain->kernel("with_barrier").ok());
  }
  cache({{std::string(kProbeF64Subnormals), ProbeRaw::Right, false},
         {std::string(kProbeWorkgroupBarrier), ProbeRaw::Right, false}});
  {
    auto kept = Module::load(*device, wasm);
    ASSERT_TRUE(kept.ok()) << kept.error().to_string();
    EXPECT_TRUE(kept->compile_options().f64_subnormals_native) << "the probe saw them kept";
    EXPECT_TRUE(kept->kernel("with_barrier").ok());
  }
  cache({{std::string(kProbeF64Subnormals), ProbeRaw::Wrong, true},
         {std::string(kProbeWorkgroupBarrier), ProbeRaw::Wrong, true}});
  auto routed = Module::load(*device, wasm);
  ASSERT_TRUE(routed.ok()) << routed.error().to_string();
  EXPECT_FALSE(routed->compile_options().f64_subnormals_native);
  auto refused = routed->kernel("with_barrier");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("workgroup_barrier"), std::string::npos) << refused.error().message;
  // What the integer path computes must still be wasm's (a subnormal product).
  if (device->float64_enabled()) {
    const std::vector<std::vector<Value>> tuples = {{Value::f64(0x1p-1022), Value::f64(0.5)}};
    auto results = routed->call("f64_mul", tuples);
    ASSERT_TRUE(results.ok()) << results.error().to_string();
    EXPECT_EQ((*results)[0].values.at(0).bits, 0x0008000000000000ull);
  }
}

}  // namespace
}  // namespace wasmgpu::runtime
