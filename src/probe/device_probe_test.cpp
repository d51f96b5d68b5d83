// The device probe on the test device: forced wrong raw results are reported
// wrong, routed around (or refused) by the runtime, and wasmgpu's results
// stay right; the results are cached where the runtime reads them. One probe
// run for the whole file (lavapipe compiles every shader on a cold cache).
#include "probe/device_probe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "probe/embedded_files.h"
#include "probe/probe_cases.h"
#include "runtime/device_state.h"
#include "runtime/host_cpu.h"
#include "runtime/instance.h"
#include "runtime/module.h"

namespace wasmgpu::probe {
namespace {

namespace fs = std::filesystem;

const ProbeLine* find_line(const ProbeReport& report, std::string_view property) {
  for (const ProbeLine& l : report.lines)
    if (l.property == property) return &l;
  return nullptr;
}

TEST(ProbeCases, ExpectedResultsAreWasmsAndForcedOnesDiffer) {
  const std::vector<ScalarCase> cases = scalar_cases();
  bool trunc_tie_case = false;
  for (const ScalarCase& c : cases) {
    EXPECT_TRUE(matches(c, c.expected)) << c.text;
    if (c.property == "f64_trunc" && c.text.starts_with("trunc(4503599627370495.5 ")) {
      trunc_tie_case = true;
      EXPECT_EQ(c.expected, 0x432FFFFFFFFFFFFEull);  // 2^52 - 1
      EXPECT_FALSE(matches(c, forced_wrong_result(c))) << "the bad driver's answer: the input";
    }
  }
  EXPECT_TRUE(trunc_tie_case);
  // Every property has a case that a forced result gets wrong.
  for (const std::string& p : probe_properties()) {
    bool any = p == "atomic_add" || p == "subgroup_ops" || p == "workgroup_barrier";
    for (const ScalarCase& c : cases)
      if (c.property == p && !matches(c, forced_wrong_result(c))) any = true;
    EXPECT_TRUE(any) << p;
  }
}

TEST(ProbeFiles, EveryBuiltFileIsEmbedded) {
  for (const char* name : {"raw_float32.spv", "raw_float64.spv", "raw_float32.controls.spv", "raw_float64.controls.spv",
                           "raw_int32.spv", "raw_int64.spv", "raw_atomics.spv", "raw_barrier.spv", "raw_subgroups.spv",
                           "probe_ops.wasm", "probe_kernels.wasm"})
    EXPECT_FALSE(probe_file(name).empty()) << name;
  EXPECT_TRUE(probe_file("nothing.spv").empty());
}

class DeviceProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("wasmgpu-probe-test-" + std::to_string(getpid()));
    fs::remove_all(dir);
    auto created = runtime::Instance::create();
    ASSERT_TRUE(created.ok()) << created.error().to_string();
    instance.emplace(std::move(created).value());
    runtime::DeviceOptions options;
    options.cache.directory = dir.string();
    auto made = runtime::Device::create(*instance, options);
    ASSERT_TRUE(made.ok()) << made.error().to_string();
    device.emplace(std::move(made).value());
  }
  void TearDown() override {
    device.reset();
    if (instance)
      for (const std::string& message : instance->validation_messages()) ADD_FAILURE() << "validation: " << message;
    instance.reset();
    fs::remove_all(dir);
  }

  fs::path dir;
  std::optional<runtime::Instance> instance;
  std::optional<runtime::Device> device;
};

TEST_F(DeviceProbeTest, ForcedWrongRawResultsAreRoutedAroundAndCached) {
  if (!device->float64_enabled()) GTEST_SKIP() << "the forced properties are f64 ones";
  ProbeOptions options;
  options.force = {"f64_trunc", "f64_subnormals", "workgroup_barrier"};
  auto report = run_device_probe(*device, options);
  ASSERT_TRUE(report.ok()) << report.error().to_string();

  const ProbeLine* trunc = find_line(*report, "f64_trunc");
  ASSERT_NE(trunc, nullptr);
  EXPECT_EQ(trunc->raw, "wrong");
  EXPECT_TRUE(trunc->forced);
  EXPECT_EQ(trunc->handling, Handling::Routed);
  EXPECT_TRUE(trunc->correct) << trunc->wasm_detail;
  EXPECT_NE(trunc->raw_detail.find("trunc("), std::string::npos) << trunc->raw_detail;

  // Flushed raw results: the runtime compiled the probe's module with the
  // integer path, from the results the probe cached before.
  const ProbeLine* subnormals = find_line(*report, "f64_subnormals");
  ASSERT_NE(subnormals, nullptr);
  EXPECT_EQ(subnormals->raw, "flushed");
  EXPECT_EQ(subnormals->handling, Handling::Routed);
  EXPECT_TRUE(subnormals->correct) << subnormals->wasm_detail;

  const ProbeLine* barrier = find_line(*report, "workgroup_barrier");
  ASSERT_NE(barrier, nullptr);
  EXPECT_EQ(barrier->raw, "wrong");
  EXPECT_EQ(barrier->handling, Handling::Refused);
  EXPECT_NE(barrier->wasm_detail.find("workgroup_barrier"), std::string::npos) << barrier->wasm_detail;

  // Nothing else was forced: what this device really does, and wasmgpu right everywhere.
  for (const ProbeLine& l : report->lines) {
    EXPECT_TRUE(l.correct) << l.property << ": " << l.wasm_detail;
    EXPECT_EQ(l.forced,
              l.property == "f64_trunc" || l.property == "f64_subnormals" || l.property == "workgroup_barrier")
        << l.property;
  }
  EXPECT_TRUE(report->all_correct());

  // Cached under this device, driver and CPU; a later module is routed by it.
  const runtime::DiskCache& cache = *device->state().disk_cache;
  const fs::path path = runtime::probe_cache_path(cache, device->info(), runtime::host_cpu_features());
  EXPECT_EQ(report->cache, path.string());
  EXPECT_TRUE(fs::exists(path));
  auto cached = runtime::read_cached_probe(cache, device->info(), runtime::host_cpu_features());
  ASSERT_TRUE(cached.has_value());
  EXPECT_TRUE(cached->wrong("f64_subnormals"));
  EXPECT_TRUE(cached->wrong("f64_trunc"));
  auto module = runtime::Module::load(*device, probe_file("probe_ops.wasm"));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  EXPECT_FALSE(module->compile_options().f64_subnormals_native);
}

TEST(ProbeForce, UnknownNamesAreRefusedWithTheList) {
  setenv("WASMGPU_PROBE_FORCE", "f64_trunc,f64_truncate", 1);
  auto parsed = probe_force_from_environment();
  unsetenv("WASMGPU_PROBE_FORCE");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error().message.find("'f64_truncate'"), std::string::npos) << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("f64_subnormals"), std::string::npos) << parsed.error().message;
  setenv("WASMGPU_PROBE_FORCE", "f64_trunc,f64_subnormals", 1);
  parsed = probe_force_from_environment();
  unsetenv("WASMGPU_PROBE_FORCE");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, (std::vector<std::string>{"f64_trunc", "f64_subnormals"}));
}

}  // namespace
}  // namespace wasmgpu::probe
