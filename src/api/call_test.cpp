// Calls of exported functions through the public API (wasmgpu/call.hpp):
// one result per tuple, traps as results, several exports in one launch,
// instance state across calls.
#include "wasmgpu/call.hpp"

#include <gtest/gtest.h>

#include "api/test_support.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace {

using testing::ApiTest;
using testing::expect_exception;
using testing::kernel_path;

TEST_F(ApiTest, CallsAnExportOncePerTupleWithTrapsAsResults) {
  Module functions = device->load_file(kernel_path("functions"));
  const std::vector<std::vector<Value>> pairs = {{Value::i32(1), Value::i32(2)},
                                                 {Value::i32(uint32_t(-5)), Value::i32(7)}};
  const std::vector<CallResult> sums = functions.call("add", pairs);
  ASSERT_EQ(sums.size(), 2u);
  EXPECT_FALSE(sums[0].trapped);
  EXPECT_EQ(sums[0].values, std::vector<Value>{Value::i32(3)});
  EXPECT_EQ(sums[1].values, std::vector<Value>{Value::i32(2)});

  const std::vector<std::vector<Value>> divisions = {{Value::i32(6), Value::i32(3)}, {Value::i32(1), Value::i32(0)}};
  const std::vector<CallResult> quotients = functions.call("quotient", divisions);
  ASSERT_EQ(quotients.size(), 2u);
  EXPECT_FALSE(quotients[0].trapped);
  EXPECT_EQ(quotients[0].values, std::vector<Value>{Value::i32(2)});
  EXPECT_TRUE(quotients[1].trapped);
  EXPECT_EQ(quotients[1].trap, "integer divide by zero");
  EXPECT_TRUE(quotients[1].values.empty());
}

TEST_F(ApiTest, CallsOfSeveralExportsShareALaunchAndTheInstanceState) {
  Module functions = device->load_file(kernel_path("functions"));
  const std::vector<Call> calls = {{"halve", {Value::f64(3.0)}}, {"add", {Value::i32(40), Value::i32(2)}}};
  const std::vector<CallResult> results = functions.call(calls, std::chrono::seconds(60));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].values, std::vector<Value>{Value::f64(1.5)});
  EXPECT_EQ(results[1].values, std::vector<Value>{Value::i32(42)});

  // The module's globals persist from one launch of calls to the next.
  functions.call("accumulate", std::vector<std::vector<Value>>{{Value::i32(5)}});
  const std::vector<CallResult> total = functions.call("accumulate", std::vector<std::vector<Value>>{{Value::i32(1)}});
  EXPECT_EQ(total.at(0).values, std::vector<Value>{Value::i32(6)});
}

TEST_F(ApiTest, CallsOfUnknownExportsOrWithWrongArgumentsRunNothing) {
  Module functions = device->load_file(kernel_path("functions"));
  const std::vector<std::vector<Value>> one = {{Value::i32(1)}};
  Exception unknown = expect_exception([&] { functions.call("missing", one); });
  EXPECT_EQ(unknown.kind(), ErrorKind::NotFound);
  EXPECT_NE(std::string(unknown.what()).find("missing"), std::string::npos) << unknown.what();
  Exception wrong = expect_exception([&] { functions.call("add", one); });
  EXPECT_EQ(wrong.kind(), ErrorKind::InvalidArgument) << wrong.what();
  // Nothing ran: the accumulator still starts from zero.
  const std::vector<CallResult> total = functions.call("accumulate", std::vector<std::vector<Value>>{{Value::i32(4)}});
  EXPECT_EQ(total.at(0).values, std::vector<Value>{Value::i32(4)});
}

TEST_F(ApiTest, FunctionInfoGivesTypesAndSideEffects) {
  Module functions = device->load_file(kernel_path("functions"));
  const FunctionInfo halve = functions.function_info("halve");
  EXPECT_EQ(halve.params, std::vector<ScalarType>{ScalarType::F64});
  EXPECT_EQ(halve.results, std::vector<ScalarType>{ScalarType::F64});
  EXPECT_FALSE(halve.has_side_effects);
  EXPECT_FALSE(functions.function_info("lookup").has_side_effects);
  EXPECT_TRUE(functions.function_info("accumulate").has_side_effects);
  EXPECT_EQ(expect_exception([&] { functions.function_info("missing"); }).kind(), ErrorKind::NotFound);
}

// A module importing a global (wat: (import "env" "base" (global i32))
// (func (export "plus_base") (param i32) (result i32) local.get 0
// global.get 0 i32.add)), loaded with the global's value.
TEST_F(ApiTest, ImportedGlobalsTakeTheValuesTheLoadGives) {
  const std::vector<uint8_t> bytes = {
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,                                           // magic, version
      0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f,                                           // type: (i32) -> i32
      0x02, 0x0d, 0x01, 0x03, 'e',  'n',  'v',  0x04, 'b',  'a',  's',  'e', 0x03, 0x7f, 0x00,  // import global i32
      0x03, 0x02, 0x01, 0x00,                                                                   // func 0: type 0
      0x07, 0x0d, 0x01, 0x09, 'p',  'l',  'u',  's',  '_',  'b',  'a',  's', 'e',  0x00, 0x00,  // export
      0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x23, 0x00, 0x6a, 0x0b,  // local.get 0 global.get 0 i32.add
  };
  ModuleOptions options;
  options.imported_globals = {1000};
  Module module = device->load(bytes, options);
  const std::vector<CallResult> results =
      module.call("plus_base", std::vector<std::vector<Value>>{{Value::i32(1)}, {Value::i32(2)}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].values, std::vector<Value>{Value::i32(1001)});
  EXPECT_EQ(results[1].values, std::vector<Value>{Value::i32(1002)});
  // Without a value for its import the module does not load.
  EXPECT_EQ(expect_exception([&] { device->load(bytes); }).kind(), ErrorKind::Compile);
}

TEST_F(ApiTest, WaitIdleWithATimeoutReturnsOnceTheWorkIsDone) {
  Module functions = device->load_file(kernel_path("functions"));
  functions.call("add", std::vector<std::vector<Value>>{{Value::i32(1), Value::i32(1)}});
  device->wait_idle(std::chrono::seconds(60));
  device->wait_idle(std::chrono::nanoseconds(0));  // nothing runs: no timeout
}

TEST(ApiCacheLocation, FollowsTheOptions) {
  DeviceOptions off;
  off.cache = false;
  const CacheLocation none = cache_location(off);
  EXPECT_TRUE(none.directory.empty());
  EXPECT_FALSE(none.disabled_reason.empty());
  DeviceOptions chosen;
  chosen.cache_directory = "/nonexistent-wasmgpu-cache-test";
  const CacheLocation there = cache_location(chosen);
  // The environment may turn caching off (WASMGPU_CACHE=0); otherwise the
  // directory is the one given.
  if (there.directory.empty())
    EXPECT_FALSE(there.disabled_reason.empty());
  else
    EXPECT_EQ(there.directory, "/nonexistent-wasmgpu-cache-test");
}

}  // namespace
}  // namespace wasmgpu
