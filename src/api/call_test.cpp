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

}  // namespace
}  // namespace wasmgpu
