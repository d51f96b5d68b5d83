#include "support/environment.h"
#include "support/scoped_variable.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace wasmgpu::environment {
namespace {

using std::chrono::nanoseconds;

TEST(EnvironmentParsing, Flags) {
  EXPECT_TRUE(parse_flag("1"));
  EXPECT_TRUE(parse_flag("yes"));
  EXPECT_FALSE(parse_flag("0"));
  EXPECT_FALSE(parse_flag(""));
  EXPECT_TRUE(parse_off("0"));
  EXPECT_TRUE(parse_off("off"));
  EXPECT_TRUE(parse_off("false"));
  EXPECT_TRUE(parse_off("no"));
  EXPECT_FALSE(parse_off("1"));
  EXPECT_FALSE(parse_off(""));
}

TEST(EnvironmentParsing, Seconds) {
  EXPECT_EQ(parse_seconds("0.5"), nanoseconds(500'000'000));
  EXPECT_EQ(parse_seconds("600"), nanoseconds(600'000'000'000));
  EXPECT_EQ(parse_seconds("1e-9"), nanoseconds(1));
  EXPECT_EQ(parse_seconds("0"), std::nullopt);
  EXPECT_EQ(parse_seconds("-1"), std::nullopt);
  EXPECT_EQ(parse_seconds("1e9"), std::nullopt);
  EXPECT_EQ(parse_seconds("5s"), std::nullopt);
  EXPECT_EQ(parse_seconds(""), std::nullopt);
  EXPECT_EQ(parse_seconds("nan"), std::nullopt);
}

TEST(EnvironmentParsing, ListsAndCounts) {
  EXPECT_EQ(parse_list("float64,,images"), (std::vector<std::string>{"float64", "images"}));
  EXPECT_EQ(parse_list("one"), (std::vector<std::string>{"one"}));
  EXPECT_TRUE(parse_list("").empty());
  EXPECT_TRUE(parse_list(",").empty());
  EXPECT_EQ(parse_count("8", 1024), 8u);
  EXPECT_EQ(parse_count("4 threads", 1024), 4u);
  EXPECT_EQ(parse_count("5000", 1024), 1024u);
  EXPECT_EQ(parse_count("0", 1024), std::nullopt);
  EXPECT_EQ(parse_count("many", 1024), std::nullopt);
}

// Each call reads the variable again: tests change them between calls.
TEST(EnvironmentVariables, AreReadAtEachCall) {
  {
    ScopedVariable timeout("WASMGPU_COMPILE_TIMEOUT", "2.5");
    EXPECT_EQ(compile_timeout(), nanoseconds(2'500'000'000));
  }
  {
    ScopedVariable timeout("WASMGPU_COMPILE_TIMEOUT", "soon");
    EXPECT_EQ(compile_timeout(), std::nullopt);
  }
  ScopedVariable unset("WASMGPU_COMPILE_TIMEOUT", nullptr);
  EXPECT_EQ(compile_timeout(), std::nullopt);

  {
    ScopedVariable warmup("WASMGPU_PIPELINE_WARMUP", "0");
    EXPECT_EQ(pipeline_warmup(), false);
  }
  {
    ScopedVariable warmup("WASMGPU_PIPELINE_WARMUP", "yes");
    EXPECT_EQ(pipeline_warmup(), std::nullopt);
  }
  {
    ScopedVariable device_name("WASMGPU_DEVICE", "");
    EXPECT_EQ(device(), std::nullopt);
  }
  {
    ScopedVariable device_name("WASMGPU_DEVICE", "llvmpipe");
    EXPECT_EQ(device(), "llvmpipe");
  }
  {
    ScopedVariable cache("WASMGPU_CACHE", "off");
    EXPECT_TRUE(cache_off());
    EXPECT_EQ(cache_setting(), "off");
  }
  {
    ScopedVariable cache("WASMGPU_CACHE", "1");
    EXPECT_FALSE(cache_off());
  }
  {
    ScopedVariable hidden("WASMGPU_HIDE_FEATURES", "int64,subgroup_vote");
    EXPECT_EQ(hidden_features(), (std::vector<std::string>{"int64", "subgroup_vote"}));
  }
  {
    ScopedVariable xdg("XDG_CACHE_HOME", "relative/ignored");
    EXPECT_EQ(xdg_cache_home(), std::nullopt);
  }
  {
    ScopedVariable xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(xdg_cache_home(), "/xdg");
  }
  {
    ScopedVariable threads("WASMGPU_BENCH_THREADS", "3");
    EXPECT_EQ(bench_threads(), 3u);
  }
  {
    ScopedVariable threads("WASMGPU_CPU_THREADS", "5000");
    EXPECT_EQ(cpu_threads(), 1024u);
  }
  {
    ScopedVariable threads("WASMGPU_CPU_THREADS", "0");
    EXPECT_EQ(cpu_threads(), std::nullopt);
  }
  for (const char* text : {"", "-1", "12k", "1e5", "99999999999999999999"}) {
    ScopedVariable budget("WASMGPU_INLINE_BUDGET", text);
    EXPECT_EQ(inline_budget(), std::nullopt) << text;
  }
  {
    ScopedVariable budget("WASMGPU_INLINE_BUDGET", "0");
    EXPECT_EQ(inline_budget(), 0u);
  }
  {
    ScopedVariable budget("WASMGPU_INLINE_BUDGET", "32768");
    EXPECT_EQ(inline_budget(), 32768u);
  }
  {
    ScopedVariable unset("WASMGPU_PROGRESS", nullptr);
    EXPECT_EQ(progress(), std::nullopt);
  }
  {
    ScopedVariable off("WASMGPU_PROGRESS", "off");
    EXPECT_EQ(progress(), Progress::Off);
  }
  {
    ScopedVariable on("WASMGPU_PROGRESS", "1");
    EXPECT_EQ(progress(), Progress::On);
  }
  {
    ScopedVariable always("WASMGPU_PROGRESS", "always");
    EXPECT_EQ(progress(), Progress::Always);
  }
  {
    ScopedVariable drivers("VK_DRIVER_FILES", "/x.json");
    EXPECT_NE(vulkan_loader_settings().find("\nVK_DRIVER_FILES=/x.json"), std::string::npos);
  }
  ScopedVariable no_drivers("VK_DRIVER_FILES", nullptr);
  EXPECT_NE(vulkan_loader_settings().find("\nVK_DRIVER_FILES=\n"), std::string::npos);
}

}  // namespace
}  // namespace wasmgpu::environment
