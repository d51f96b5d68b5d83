// WASMGPU_PIPELINE_STATISTICS: a device whose driver offers
// VK_KHR_pipeline_executable_properties prints the driver's statistics of
// every pipeline it creates; one without (lavapipe) opens and runs as usual
// and prints nothing.
#include "runtime/pipeline_statistics.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/module.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;

TEST(PipelineStatistics, RequestedByTheEnvironment) {
  unsetenv("WASMGPU_PIPELINE_STATISTICS");
  EXPECT_FALSE(pipeline_statistics_requested());
  setenv("WASMGPU_PIPELINE_STATISTICS", "0", 1);
  EXPECT_FALSE(pipeline_statistics_requested());
  setenv("WASMGPU_PIPELINE_STATISTICS", "1", 1);
  EXPECT_TRUE(pipeline_statistics_requested());
  unsetenv("WASMGPU_PIPELINE_STATISTICS");
  // A directory for the internal representations asks for statistics too.
  setenv("WASMGPU_PIPELINE_IR", "/tmp", 1);
  EXPECT_TRUE(pipeline_statistics_requested());
  unsetenv("WASMGPU_PIPELINE_IR");
  EXPECT_FALSE(pipeline_statistics_requested());
}

class PipelineStatisticsTest : public VulkanTest {
 protected:
  void SetUp() override {
    setenv("WASMGPU_PIPELINE_STATISTICS", "1", 1);
    VulkanTest::SetUp();
    unsetenv("WASMGPU_PIPELINE_STATISTICS");
  }
};

TEST_F(PipelineStatisticsTest, PrintedWhereTheDriverOffersThem) {
  DeviceState& state = device->state();
  EXPECT_EQ(pipeline_statistics_flags(state) != 0, state.pipeline_statistics);
  auto module = Module::load(*device, testing::wat_to_wasm(R"((module
    (func (export "twice") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))))"));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  ::testing::internal::CaptureStderr();
  std::vector<std::vector<Value>> tuples = {{Value::i32(21)}};
  auto results = module->call("twice", tuples);
  std::string printed = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  EXPECT_EQ((*results)[0].values.at(0), Value::i32(42));
  if (state.pipeline_statistics) {
    EXPECT_NE(printed.find("pipeline statistics ("), std::string::npos) << printed;
    EXPECT_NE(printed.find('='), std::string::npos) << printed;
  } else {
    EXPECT_EQ(printed.find("pipeline statistics"), std::string::npos) << printed;
  }
  std::cout << device->info().name << ": pipeline statistics "
            << (state.pipeline_statistics ? "offered" : "not offered") << "\n";
}

}  // namespace
}  // namespace wasmgpu::runtime
