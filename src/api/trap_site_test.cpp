// ModuleOptions::trap_sites: a trap names the function and the module offset
// of the instruction that trapped, in a launch's TrapError and in a trapped
// call's CallResult (testdata/trap_sites.wat: the traps are in callees, so
// the report must name them and not the kernel). The expected offsets come
// from decoding the same file.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "api/test_support.h"
#include "wasm/decoder.h"
#include "wasmgpu/call.hpp"
#include "wasmgpu/device.hpp"

namespace wasmgpu {
namespace {

using testing::ApiTest;
using testing::expect_exception;
using testing::kernel_path;

// The module offset of the only `op` in the body of function `index`.
uint32_t offset_of(const std::string& path, uint32_t index, wasm::Opcode op) {
  std::ifstream file(path, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Result<wasm::Module> module = wasm::decode(bytes);
  EXPECT_TRUE(module.ok());
  if (!module.ok()) return 0;
  uint32_t found = 0, count = 0;
  for (const wasm::Instr& instr : module.value().functions.at(index).body)
    if (instr.op == op) found = instr.offset, ++count;
  EXPECT_EQ(count, 1u);
  return found;
}

std::string hex(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

ModuleOptions with_trap_sites() {
  ModuleOptions options;
  options.trap_sites = true;
  return options;
}

TEST_F(ApiTest, TrapSiteOfALaunchNamesTheCalleeAndItsInstruction) {
  const std::string path = kernel_path("trap_sites");
  Module module = device->load_file(path, with_trap_sites());
  Buffer<int32_t> out = device->buffer<int32_t>(8);
  out.fill(3);
  module.kernel("gather")(8, out, 4);  // in bounds: no trap
  EXPECT_EQ(out.read(), std::vector<int32_t>(8, 3));
  const uint32_t load = offset_of(path, 0, wasm::Opcode::I32Load);
  Exception trap = expect_exception([&] { module.kernel("gather")(8, out, 1 << 20); });
  EXPECT_EQ(trap.kind(), ErrorKind::Trap);
  const std::string message = trap.what();
  // Invocation 0 reads out[0]; every other one reads 1 MiB further per index.
  EXPECT_NE(message.find("out of bounds memory access at invocation 1 (7 invocations trapped)"), std::string::npos)
      << message;
  // One of the seven trapping invocations claims the site.
  bool named = false;
  for (int i = 1; i < 8; ++i)
    named |= message.find("; invocation " + std::to_string(i) +
                          " trapped in function 'read' (function 0) at module offset " + hex(load) +
                          ", accessing 4 bytes at address 0x") != std::string::npos;
  EXPECT_TRUE(named) << message << "\nwanted the i32.load at " << load;
}

TEST_F(ApiTest, TrapSiteOfACallNamesTheCallee) {
  const std::string path = kernel_path("trap_sites");
  Module module = device->load_file(path, with_trap_sites());
  const std::vector<std::vector<Value>> tuples = {{Value::i32(7), Value::i32(2)}, {Value::i32(7), Value::i32(0)}};
  const std::vector<CallResult> results = module.call("quotient", tuples);
  ASSERT_EQ(results.size(), 2u);
  ASSERT_FALSE(results[0].trapped);
  EXPECT_EQ(results[0].values.at(0).bits, 3u);
  EXPECT_TRUE(results[0].trap_site.empty());
  ASSERT_TRUE(results[1].trapped);
  EXPECT_EQ(results[1].trap, "integer divide by zero");
  EXPECT_EQ(results[1].trap_site,
            "function 'divide' (function 1) at module offset " + hex(offset_of(path, 1, wasm::Opcode::I32DivS)));
}

TEST_F(ApiTest, TrapSiteNamesTheAddressOfTheTrappingAccess) {
  const std::string path = kernel_path("trap_sites");
  Module module = device->load_file(path, with_trap_sites());
  Buffer<int32_t> out = device->buffer<int32_t>(8);
  const std::string load = hex(offset_of(path, 0, wasm::Opcode::I32Load));
  Exception trap = expect_exception([&] { module.kernel("gather_far")(8, out); });
  const std::string message = trap.what();
  EXPECT_NE(message.find("out of bounds memory access at invocation 0 (8 invocations trapped)"), std::string::npos)
      << message;
  bool named = false;  // whichever invocation claims the site names its own address
  for (uint32_t i = 0; i < 8; ++i)
    named |= message.ends_with("; invocation " + std::to_string(i) +
                               " trapped in function 'read' (function 0) at module offset " + load +
                               ", accessing 4 bytes at address " + hex(0xfff00000u + 4 * i));
  EXPECT_TRUE(named) << message;
}

TEST_F(ApiTest, TrapSiteOfACallIsItsFirstTrapNotWhereItWoundDown) {
  const std::string path = kernel_path("trap_sites");
  Module module = device->load_file(path, with_trap_sites());
  const std::vector<CallResult> results = module.call(
      "read_then_load", std::vector<std::vector<Value>>{{Value::i32(0)}, {Value::i32(int32_t(0xfff00010u))}});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_FALSE(results[0].trapped);
  ASSERT_TRUE(results[1].trapped);
  EXPECT_EQ(results[1].trap, "out of bounds memory access");
  // After the callee trapped, the caller's i32.load at 16 still ran (and
  // could not trap); the site is the callee's load.
  EXPECT_EQ(results[1].trap_site, "function 'read' (function 0) at module offset " +
                                      hex(offset_of(path, 0, wasm::Opcode::I32Load)) +
                                      ", accessing 4 bytes at address 0xfff00010");
}

TEST_F(ApiTest, WithoutTrapSitesATrapNamesNoSite) {
  Module module = device->load_file(kernel_path("trap_sites"));
  Buffer<int32_t> out = device->buffer<int32_t>(8);
  Exception trap = expect_exception([&] { module.kernel("gather")(8, out, 1 << 20); });
  EXPECT_STREQ(trap.what(),
               "kernel 'gather' trapped: out of bounds memory access at invocation 1 (7 invocations trapped)");
  const std::vector<CallResult> results =
      module.call("quotient", std::vector<std::vector<Value>>{{Value::i32(1), Value::i32(0)}});
  ASSERT_TRUE(results.at(0).trapped);
  EXPECT_TRUE(results.at(0).trap_site.empty());
}

}  // namespace
}  // namespace wasmgpu
