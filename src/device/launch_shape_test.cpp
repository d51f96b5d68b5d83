// The launch shape of launches without a workgroup size (api/launch_shape.h)
// over the device's test double: the heuristic per vendor and limits, the
// size-dependence analysis, user sizes kept, and the autotuner converging and
// caching under an injected clock (nothing is timed for real).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "api/impl.h"
#include "api/launch_shape.h"
#include "device/fake/fake_device.h"
#include "wasm/decoder.h"
#include "wasmgpu/wasmgpu.hpp"

namespace wasmgpu {
namespace {

using device::DeviceDescription;
using device::fake::fake_log;

std::string kernel_path(const char* name) { return std::string(WASMGPU_API_KERNELS_DIR) + "/" + name + ".wasm"; }

wasm::Module decode(const char* name) {
  std::ifstream file(kernel_path(name), std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Result<wasm::Module> module = wasm::decode_and_validate(bytes);
  EXPECT_TRUE(module.ok()) << name;
  return std::move(module).value();
}

DeviceDescription gpu(uint32_t vendor, std::string type, uint32_t subgroup = 32, uint32_t max_invocations = 1024) {
  DeviceDescription d;
  d.vendor_id = vendor;
  d.type = std::move(type);
  d.subgroup_size = subgroup;
  d.max_workgroup_invocations = max_invocations;
  d.max_workgroup_size_x = max_invocations;
  return d;
}

TEST(LaunchHeuristic, PerVendorTypeAndLimits) {
  using detail::heuristic_workgroup_size;
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x10DE, "discrete GPU")).size, 256u);
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x10DE, "discrete GPU")).reason, "discrete GPU of vendor 0x10de (NVIDIA)");
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x1002, "discrete GPU", 64)).size, 256u);
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x1002, "integrated GPU", 64)).size, 256u);
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x8086, "integrated GPU", 16)).size, 128u);
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x13B5, "discrete GPU", 16)).size, 256u);
  // lavapipe: a CPU device keeps 64.
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x10005, "CPU", 8)).size, 64u);
  EXPECT_EQ(heuristic_workgroup_size(gpu(0, "other", 0, 256)).size, 64u);
  // Never past the device's limits: invocations, x, and y*z of a shader.
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x10DE, "discrete GPU", 32, 128)).size, 128u);
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x10DE, "discrete GPU", 32, 128)).reason,
            "discrete GPU of vendor 0x10de (NVIDIA), the device's limit of 128");
  DeviceDescription narrow_x = gpu(0x1002, "discrete GPU", 64);
  narrow_x.max_workgroup_size_x = 128;
  EXPECT_EQ(heuristic_workgroup_size(narrow_x).size, 128u);
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x10DE, "discrete GPU"), 8).size, 128u);
  // At least one subgroup where the device's subgroups are wider.
  EXPECT_EQ(heuristic_workgroup_size(gpu(0x10005, "CPU", 128)).size, 128u);
}

TEST(LaunchHeuristic, CandidatesAndSizeClasses) {
  EXPECT_EQ(detail::tuning_candidates(gpu(0x10DE, "discrete GPU"), 256),
            (std::vector<uint32_t>{256, 64, 128, 512, 1024}));
  EXPECT_EQ(detail::tuning_candidates(gpu(0x1002, "discrete GPU", 128, 256), 256), (std::vector<uint32_t>{256, 128}));
  EXPECT_EQ(detail::size_class(4095), 5u);
  EXPECT_EQ(detail::size_class(4096), 6u);
  EXPECT_EQ(detail::size_class(16383), 6u);
  EXPECT_EQ(detail::size_class(16384), 7u);
  EXPECT_EQ(detail::decode_tuned_size(detail::encode_tuned_size(512)), 512u);
  const std::string junk = "workgroup_size 0x\n";
  EXPECT_FALSE(detail::decode_tuned_size(std::span<const uint8_t>((const uint8_t*)junk.data(), junk.size())));
}

TEST(LaunchSizeDependence, FromTheKernelsCallsAndSharedMemory) {
  const wasm::Module tunable = decode("tunable");
  EXPECT_FALSE(detail::wasm_size_dependence(tunable, "add_one").depends);
  // global_id and buffer atomics do not see the workgroup size.
  EXPECT_FALSE(detail::wasm_size_dependence(tunable, "count_positive").depends);
  const wasm::Module groups = decode("workgroups");
  const detail::SizeDependence lane = detail::wasm_size_dependence(groups, "lane_of");
  EXPECT_TRUE(lane.depends);
  EXPECT_EQ(lane.reason, "calls wasmgpu.local_id");  // through a helper function
  const detail::SizeDependence reverse = detail::wasm_size_dependence(groups, "reverse_in_group");
  EXPECT_TRUE(reverse.depends);
  EXPECT_TRUE(reverse.uses_barriers);
  EXPECT_NE(reverse.reason.find("wasmgpu.barrier"), std::string::npos) << reverse.reason;
  EXPECT_NE(detail::wasm_size_dependence(groups, "subgroup_total").reason.find("wasmgpu.subgroup_add_i32"),
            std::string::npos);
}

// Sets WASMGPU_AUTOTUNE for one test and puts back what was there.
class AutotuneSetting {
 public:
  explicit AutotuneSetting(const char* value) {
    if (const char* old = std::getenv("WASMGPU_AUTOTUNE")) previous_ = old;
    setenv("WASMGPU_AUTOTUNE", value, 1);
  }
  ~AutotuneSetting() {
    if (previous_)
      setenv("WASMGPU_AUTOTUNE", previous_->c_str(), 1);
    else
      unsetenv("WASMGPU_AUTOTUNE");
  }

 private:
  std::optional<std::string> previous_;
};

// A clock that advances at each reading by the cost of the workgroup size of
// the launch the fake device saw last: a timed launch takes cost(size).
void inject_clock(Device& device, std::map<uint32_t, int64_t> cost) {
  auto now = std::make_shared<int64_t>(0);
  detail::Access::device(device)->tuner->clock = [now, cost] {
    const uint32_t size = fake_log().launches.empty() ? 0 : fake_log().launches.back().shape.workgroup_size[0];
    auto it = cost.find(size);
    *now += it == cost.end() ? 1000 : it->second;
    return std::chrono::nanoseconds(*now);
  };
}

uint32_t last_size() { return fake_log().launches.back().shape.workgroup_size[0]; }

class LaunchShapeTest : public ::testing::Test {
 protected:
  void SetUp() override { fake_log() = {}; }
};

TEST_F(LaunchShapeTest, TheAutotunerTimesEachCandidateOnceThenKeepsTheFastestAndCachesIt) {
  AutotuneSetting on("1");
  const uint32_t n = 1 << 20;
  {
    Device device = Device::open(0);  // "other", 256 invocations: candidates 64, 128, 256
    inject_clock(device, {{64, 300}, {128, 100}, {256, 200}});
    Module module = device.load_file(kernel_path("tunable"));
    Kernel add_one = module.kernel("add_one");
    Buffer<float> src = device.buffer<float>(16), dst = device.buffer<float>(16);
    EXPECT_EQ(add_one.launch_shape(n).source, LaunchChoice::Source::Tuning);
    std::vector<uint32_t> sizes;
    for (int i = 0; i < 3; ++i) {
      add_one(n, src, dst);
      sizes.push_back(last_size());
    }
    EXPECT_EQ(sizes, (std::vector<uint32_t>{64, 128, 256}));  // each candidate once, heuristic first
    const LaunchChoice tuned = add_one.launch_shape(n);
    EXPECT_EQ(tuned.source, LaunchChoice::Source::Tuned);
    EXPECT_EQ(tuned.workgroup_size[0], 128u);
    EXPECT_TRUE(tuned.tunable);
    EXPECT_NE(tuned.reason.find("autotuned for n in [1048576, 4194304)"), std::string::npos) << tuned.reason;
    add_one(n + 5, src, dst);  // the same size class
    EXPECT_EQ(last_size(), 128u);
    // Recorded launches get the winner too (they are never timed).
    CommandBuffer commands = device.command_buffer();
    commands.launch(add_one, n, src, dst);
    commands.submit().wait();
    EXPECT_EQ(last_size(), 128u);
    // Another size class tunes on its own.
    EXPECT_EQ(add_one.launch_shape(4096).source, LaunchChoice::Source::Tuning);
    // Too few invocations: the heuristic.
    EXPECT_EQ(add_one.launch_shape(100).source, LaunchChoice::Source::Heuristic);
    EXPECT_EQ(fake_log().launches.size(), 5u);  // nothing ran twice
  }
  ASSERT_EQ(fake_log().cache.size(), 1u);
  // A new device of the same kind reads the winner from the cache: no tuning.
  Device again = Device::open(0);
  Module module = again.load_file(kernel_path("tunable"));
  Buffer<float> src = again.buffer<float>(16), dst = again.buffer<float>(16);
  EXPECT_EQ(module.kernel("add_one").launch_shape(n).source, LaunchChoice::Source::Tuned);
  module.kernel("add_one")(n, src, dst);
  EXPECT_EQ(last_size(), 128u);
  // Another kernel of the module has its own entry.
  EXPECT_EQ(module.kernel("count_positive").launch_shape(n).source, LaunchChoice::Source::Tuning);
}

TEST_F(LaunchShapeTest, ASizeDependentKernelIsNeverTuned) {
  AutotuneSetting on("1");
  Device device = Device::open(0);
  inject_clock(device, {{64, 300}, {128, 100}, {256, 200}});
  Module module = device.load_file(kernel_path("workgroups"));
  Kernel lane_of = module.kernel("lane_of");
  Buffer<uint32_t> out = device.buffer<uint32_t>(16);
  for (int i = 0; i < 5; ++i) {
    lane_of(1 << 20, out);
    EXPECT_EQ(last_size(), 64u);
  }
  const LaunchChoice choice = lane_of.launch_shape(1 << 20);
  EXPECT_EQ(choice.source, LaunchChoice::Source::Heuristic);
  EXPECT_FALSE(choice.tunable);
  EXPECT_EQ(choice.reason, "64 (heuristic: other device); not tuned: calls wasmgpu.local_id");
  EXPECT_TRUE(fake_log().cache.empty());
}

TEST_F(LaunchShapeTest, AUserSetSizeIsAlwaysKept) {
  AutotuneSetting on("1");
  Device device = Device::open(0);
  inject_clock(device, {{64, 300}, {128, 100}, {256, 200}});
  Module module = device.load_file(kernel_path("tunable"));
  Kernel add_one = module.kernel("add_one");
  Buffer<float> src = device.buffer<float>(16), dst = device.buffer<float>(16);
  for (int i = 0; i < 4; ++i) {
    add_one(Launch::invocations(1 << 20, 32), src, dst);
    EXPECT_EQ(last_size(), 32u);
  }
  EXPECT_EQ(add_one.launch_shape(Launch::invocations(1 << 20, 32)).source, LaunchChoice::Source::User);
  // User launches time nothing: the autotuner still starts at its first candidate.
  EXPECT_EQ(add_one.launch_shape(1 << 20).workgroup_size[0], 64u);
  EXPECT_EQ(add_one.launch_shape(1 << 20).source, LaunchChoice::Source::Tuning);
  // A grid keeps its default (its invocation count depends on the size).
  add_one(Launch::grid({4, 1, 1}), src, dst);
  EXPECT_EQ(last_size(), 0u);
}

TEST_F(LaunchShapeTest, AutotuneOffGivesTheHeuristicOnly) {
  AutotuneSetting off("0");
  Device device = Device::open(0);
  inject_clock(device, {{64, 300}, {128, 100}, {256, 200}});
  Module module = device.load_file(kernel_path("tunable"));
  Kernel add_one = module.kernel("add_one");
  Buffer<float> src = device.buffer<float>(16), dst = device.buffer<float>(16);
  for (int i = 0; i < 5; ++i) {
    add_one(1 << 20, src, dst);
    EXPECT_EQ(last_size(), 64u);
  }
  const LaunchChoice choice = add_one.launch_shape(1 << 20);
  EXPECT_EQ(choice.source, LaunchChoice::Source::Heuristic);
  EXPECT_TRUE(choice.tunable);
  EXPECT_NE(choice.reason.find("WASMGPU_AUTOTUNE=0"), std::string::npos) << choice.reason;
  EXPECT_TRUE(fake_log().cache.empty());
}

TEST_F(LaunchShapeTest, BarrierKernelsGetASizeThatDividesN) {
  AutotuneSetting off("0");
  DeviceDescription h200 = gpu(0x10DE, "discrete GPU");
  h200.name = "Fake H200";
  h200.max_buffer_bytes = 1 << 20;
  Device device = detail::Access::open(std::make_unique<device::fake::FakeDevice>(h200));
  Module module = device.load_file(kernel_path("workgroups"));
  Kernel reverse = module.kernel("reverse_in_group");
  EXPECT_EQ(reverse.launch_shape(256 * 2).workgroup_size[0], 256u);
  EXPECT_EQ(reverse.launch_shape(128 * 3).workgroup_size[0], 128u);
  EXPECT_EQ(reverse.launch_shape(128 * 3).reason,
            "128 (heuristic: discrete GPU of vendor 0x10de (NVIDIA), halved from 256 to divide n (the kernel waits at "
            "barriers)); not tuned: calls wasmgpu.local_id, wasmgpu.workgroup_size, wasmgpu.barrier");
  // Halving stops at the old default of 64: the launch's own check reports the rest.
  EXPECT_EQ(reverse.launch_shape(100).workgroup_size[0], 64u);
  // A size-dependent kernel without barriers gets the heuristic as it is.
  EXPECT_EQ(module.kernel("lane_of").launch_shape(100).workgroup_size[0], 256u);
}

}  // namespace
}  // namespace wasmgpu
