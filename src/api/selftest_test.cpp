// The device self-test through the public API: a line per property, every
// wasmgpu result right, forced raw results shown wrong and routed around.
#include "wasmgpu/selftest.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "api/test_support.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace {

using ApiSelftest = testing::ValidatedTest;
using testing::expect_exception;
using testing::ScratchCache;

const SelftestLine* line_of(const SelftestReport& report, const std::string& property) {
  for (const SelftestLine& l : report.lines)
    if (l.property == property) return &l;
  return nullptr;
}

TEST_F(ApiSelftest, ReportsEveryPropertyAndForcedRawResultsAreRoutedAround) {
  ScratchCache scratch;
  ASSERT_FALSE(scratch.dir.empty());
  Device device = scratch.open();
  SelftestOptions options;
  options.force = {"i32_shift"};
  size_t progress_lines = 0;
  options.progress = [&](const std::string&) { ++progress_lines; };
  const SelftestReport report = selftest(device, options);
  EXPECT_TRUE(report.all_correct());
  EXPECT_GT(progress_lines, 0u);
  EXPECT_FALSE(report.cache.empty());
  for (const char* property : {"f32_arith", "f64_trunc", "i32_shift", "i64_rem_s", "atomic_add", "workgroup_barrier"})
    EXPECT_NE(line_of(report, property), nullptr) << property;
  const SelftestLine* shift = line_of(report, "i32_shift");
  ASSERT_NE(shift, nullptr);
  EXPECT_TRUE(shift->forced);
  EXPECT_EQ(shift->raw, "wrong");
  EXPECT_NE(shift->handling, "native");
  EXPECT_TRUE(shift->correct);
  EXPECT_GT(shift->cases, 0u);
  const SelftestLine* arith = line_of(report, "f32_arith");
  ASSERT_NE(arith, nullptr);
  EXPECT_FALSE(arith->forced);
}

TEST_F(ApiSelftest, UnknownForcedPropertiesAreNotFound) {
  ScratchCache scratch;
  Device device = scratch.open();
  SelftestOptions options;
  options.force = {"no_such_property"};
  EXPECT_EQ(expect_exception([&] { selftest(device, options); }).kind(), ErrorKind::NotFound);
  ::setenv("WASMGPU_PROBE_FORCE", "f64_trunc,no_such_property", 1);
  Exception e = expect_exception([] { selftest_force_from_environment(); });
  ::unsetenv("WASMGPU_PROBE_FORCE");
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_NE(std::string(e.what()).find("no_such_property"), std::string::npos) << e.what();
  EXPECT_TRUE(selftest_force_from_environment().empty());
  EXPECT_FALSE(host_cpu_features().empty());
}

}  // namespace
}  // namespace wasmgpu
