// The cpu device through the public API: the e2e kernels against the same C
// compiled natively, every kernel's output bytes against lavapipe (the
// Vulkan device) in exact mode, float edge cases, traps, refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

#include "cpu/address_space.h"
#include "frontend/test_util.h"
#include "support/environment.h"
#include "wasmgpu/wasmgpu.hpp"

extern "C" {
void integer_ops(int i, const uint32_t* a32, const uint64_t* a64, uint64_t* out);
void float_ops(int i, const float* f, const double* d, const int32_t* n, uint64_t* out);
void control_flow(int i, const uint32_t* in, uint32_t* out);
void frames(int i, const uint32_t* in, uint32_t* out);
}

namespace wasmgpu {
namespace {

std::string e2e_kernel(const std::string& name, const std::string& opt) {
  return std::string(WASMGPU_TEST_DATA_DIR) + "/kernels/" + name + "." + opt + ".wasm";
}
std::string bench_kernel(const std::string& name) {
  return std::string(WASMGPU_TEST_DATA_DIR) + "/../bench/" + name + ".wasm";
}
std::string example_kernel(const std::string& name) {
  return std::string(WASMGPU_TEST_DATA_DIR) + "/../examples/" + name + ".wasm";
}

Device open_cpu() {
  DeviceOptions options;
  options.name = "cpu";
  return Device::open(options);
}

// The Vulkan device the suite runs on (lavapipe here), never the cpu device.
Device open_vulkan() {
  DeviceOptions options;
  options.use_environment = false;
  return Device::open(options);
}

template <class T>
std::vector<T> random_values(size_t count, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> out(count);
  for (auto& v : out) {
    uint64_t bits = rng();
    std::memcpy(&v, &bits, sizeof(T));
  }
  return out;
}

// Finite values whose products stay finite, as the e2e test uses.
std::vector<float> test_floats(size_t count, uint32_t seed) {
  static const float kEdges[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f,  -0.5f,           1.5f,
                                 2.5f, -2.5f, 3.0f, 1e6f,  -1e6f, 1.17549435e-38f, 3.0e38f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-1e6f, 1e6f), narrow(-8.0f, 8.0f);
  std::vector<float> values(count);
  for (auto& v : values) {
    uint32_t r = rng();
    v = r % 5 == 0 ? kEdges[(r >> 8) % std::size(kEdges)] : r % 5 == 1 ? narrow(rng) : wide(rng);
  }
  for (size_t i = 0; i + 1 < values.size(); i += 2)
    if (std::fabs(values[i]) > 1e7f) values[i + 1] = 0.5f;
  return values;
}

std::vector<double> test_doubles(size_t count, uint32_t seed) {
  static const double kEdges[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 4.5, 1e12, -1e12, 2.2250738585072014e-308};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> wide(-1e12, 1e12), narrow(-8.0, 8.0);
  std::vector<double> values(count);
  for (auto& v : values) {
    uint64_t r = rng();
    v = r % 5 == 0 ? kEdges[(r >> 8) % std::size(kEdges)] : r % 5 == 1 ? narrow(rng) : wide(rng);
  }
  return values;
}

// The index of the first difference, or -1.
template <class T>
long first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return long(i);
  return -1;
}

class CpuDevice : public ::testing::TestWithParam<const char*> {};

TEST(CpuDeviceInfo, OpensByNameAndListsItsThreads) {
  Device device = open_cpu();
  EXPECT_EQ(device.info().name, "cpu");
  EXPECT_EQ(device.info().type, "CPU");
  EXPECT_NE(device.info().driver.find("thread"), std::string::npos) << device.info().driver;
  ASSERT_TRUE(cpu_device().has_value());
  EXPECT_EQ(cpu_device()->name, "cpu");
  DeviceOptions upper;
  upper.name = "CPU";
  EXPECT_EQ(Device::open(upper).info().name, "cpu");
}

TEST(CpuDeviceInfo, BuffersStartZeroedAndRoundTrip) {
  Device device = open_cpu();
  Buffer<uint32_t> buffer = device.buffer<uint32_t>(100000);
  EXPECT_EQ(buffer.read(), std::vector<uint32_t>(100000, 0));
  std::vector<uint32_t> values = random_values<uint32_t>(100000, 1);
  buffer.write(std::span<const uint32_t>(values));
  EXPECT_EQ(buffer.read(), values);
}

TEST(CpuAddressSpace, BuffersGetAlignedGuardedAddressesAndPageOwners) {
  Result<cpu::AddressSpace*> created = cpu::AddressSpace::create();
  ASSERT_TRUE(created.ok()) << created.error().message;
  std::unique_ptr<cpu::AddressSpace> space(created.value());
  const uint64_t a = space->allocate(100).value(), b = space->allocate(70000).value();
  EXPECT_EQ(a, 0x1000'0000u);
  EXPECT_EQ(a % 0x10000, 0u);
  EXPECT_GE(b, a + 0x10000 + 0x10000);  // a's rounded size, then its guard
  EXPECT_EQ(space->page_end()[a >> 16], a + 100);
  EXPECT_EQ(space->page_end()[(b >> 16) + 1], b + 70000);
  EXPECT_EQ(space->page_end()[(a >> 16) + 1], 0u);  // the guard
  space->host(b)[69999] = 7;
  space->release(b);
  EXPECT_EQ(space->page_end()[b >> 16], 0u);
  const uint64_t again = space->allocate(70000).value();
  EXPECT_EQ(again, b);
  EXPECT_EQ(space->host(again)[69999], 0);  // fresh pages
}

TEST_P(CpuDevice, IntegerOpsMatchNative) {
  constexpr uint32_t n = 512, per_item = 48;
  std::vector<uint32_t> a32 = random_values<uint32_t>(2 * n, 1);
  std::vector<uint64_t> a64 = random_values<uint64_t>(2 * n, 2);
  Device device = open_cpu();
  Module module = device.load_file(e2e_kernel("integer_ops", GetParam()));
  Buffer<uint32_t> b32 = device.upload(a32);
  Buffer<uint64_t> b64 = device.upload(a64);
  Buffer<uint64_t> out = device.buffer<uint64_t>(size_t(n) * per_item);
  module.kernel("integer_ops")(Launch::invocations(n, 64), b32, b64, out);
  std::vector<uint64_t> native(size_t(n) * per_item);
  for (uint32_t i = 0; i < n; ++i) integer_ops(int(i), a32.data(), a64.data(), native.data());
  EXPECT_EQ(first_difference(out.read(), native), -1);
}

TEST_P(CpuDevice, FloatOpsMatchNative) {
  constexpr uint32_t n = 512, per_item = 32;
  std::vector<float> f = test_floats(2 * n, 3);
  std::vector<double> d = test_doubles(2 * n, 4);
  std::vector<int32_t> k = random_values<int32_t>(n, 5);
  Device device = open_cpu();
  Module module = device.load_file(e2e_kernel("float_ops", GetParam()));
  Buffer<float> fb = device.upload(f);
  Buffer<double> db = device.upload(d);
  Buffer<int32_t> kb = device.upload(k);
  Buffer<uint64_t> out = device.buffer<uint64_t>(size_t(n) * per_item);
  module.kernel("float_ops")(Launch::invocations(n, 32), fb, db, kb, out);
  std::vector<uint64_t> native(size_t(n) * per_item);
  for (uint32_t i = 0; i < n; ++i) float_ops(int(i), f.data(), d.data(), k.data(), native.data());
  EXPECT_EQ(first_difference(out.read(), native), -1);
}

TEST_P(CpuDevice, ControlFlowAndStackFramesMatchNative) {
  constexpr uint32_t n = 1000;
  std::vector<uint32_t> in = random_values<uint32_t>(n, 6);
  Device device = open_cpu();
  {
    Module module = device.load_file(e2e_kernel("control_flow", GetParam()));
    Buffer<uint32_t> ib = device.upload(in);
    Buffer<uint32_t> out = device.buffer<uint32_t>(size_t(n) * 6);
    module.kernel("control_flow")(n, ib, out);
    std::vector<uint32_t> native(size_t(n) * 6);
    for (uint32_t i = 0; i < n; ++i) control_flow(int(i), in.data(), native.data());
    EXPECT_EQ(first_difference(out.read(), native), -1);
  }
  {
    // Structs by value, 1 and 2 KiB arrays, locals passed down three calls:
    // the shadow stack in each worker's private slot.
    Module module = device.load_file(e2e_kernel("stack_frames", GetParam()));
    Buffer<uint32_t> ib = device.upload(in);
    Buffer<uint32_t> out = device.buffer<uint32_t>(size_t(n) * 6);
    module.kernel("frames")(n, ib, out);
    std::vector<uint32_t> native(size_t(n) * 6);
    for (uint32_t i = 0; i < n; ++i) frames(int(i), in.data(), native.data());
    EXPECT_EQ(first_difference(out.read(), native), -1);
  }
}

// The float edge cases exact mode decides (NaNs of every kind, subnormals,
// infinities, ties): the cpu device's bits are lavapipe's bits.
TEST(CpuDeviceFloats, FloatEdgeCasesGiveLavapipesBits) {
  static const uint32_t kF32[] = {0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000,
                                  0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0xFF812345, 0x3F800000, 0xBFC00000,
                                  0x40200000, 0x4B000001, 0x3EFFFFFF, 0xCF000000, 0x00400000, 0x80000003};
  static const uint64_t kF64[] = {0x0,
                                  0x8000000000000000,
                                  0x1,
                                  0x800FFFFFFFFFFFFF,
                                  0x0010000000000000,
                                  0x7FEFFFFFFFFFFFFF,
                                  0x7FF0000000000000,
                                  0xFFF0000000000000,
                                  0x7FF8000000000000,
                                  0xFFF8000000000001,
                                  0x7FF0000000000001,
                                  0x3FF0000000000000,
                                  0xC004000000000000,
                                  0x4330000000000001,
                                  0x41E0000000000000,
                                  0xC3E0000000000000,
                                  0x3CA0000000000000};
  constexpr uint32_t per_item = 24;
  // Every pair of edge values.
  std::vector<uint32_t> f;
  std::vector<uint64_t> d;
  for (uint32_t x : kF32)
    for (uint32_t y : kF32) f.insert(f.end(), {x, y});
  for (size_t i = 0; i < f.size() / 2; ++i) {
    const size_t x = i % std::size(kF64), y = (i / std::size(kF64)) % std::size(kF64);
    d.insert(d.end(), {kF64[x], kF64[y]});
  }
  const uint32_t n = uint32_t(f.size() / 2);
  auto run = [&](Device device) {
    Module module = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/float_edges.wasm");
    Buffer<uint32_t> fb = device.upload(f);
    Buffer<uint64_t> db = device.upload(d);
    Buffer<uint64_t> out = device.buffer<uint64_t>(size_t(n) * per_item);
    module.kernel("float_edges")(n, fb, db, out);
    return out.read();
  };
  const std::vector<uint64_t> cpu = run(open_cpu()), lavapipe = run(open_vulkan());
  const long diff = first_difference(cpu, lavapipe);
  EXPECT_EQ(diff, -1) << "item " << diff / per_item << " result " << diff % per_item << ": cpu " << std::hex
                      << cpu[diff < 0 ? 0 : diff] << " lavapipe " << lavapipe[diff < 0 ? 0 : diff];
  // Some of wasm's rules, as bits: the canonical NaN from 0/0, -0 < +0 in min.
  EXPECT_EQ(cpu[0 * per_item + 3], 0x7FC00000u);  // 0 / 0
  EXPECT_EQ(cpu[1 * per_item + 5], 0x80000000u);  // min(+0, -0)
}

// v128: C kernels built with -msimd128 (testdata/simd_ops.c: 20 v128 results
// per item from 40 distinct SIMD instructions) give lavapipe's bytes on the
// cpu device, float lanes' NaNs and signed zeros included; and v128
// parameters and results of calls take two i64 slots each, as on Vulkan.
TEST(CpuDeviceSimd, SimdKernelsGiveLavapipesBytes) {
  static const uint32_t kF32[] = {0x00000000, 0x80000000, 0x00000001, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
                                  0x7FC00000, 0xFFC00001, 0x7F800001, 0x3F800000, 0xBFC00000, 0x40200000,
                                  0x4F000000, 0xCF000001, 0x3EFFFFFF, 0x4F800000};
  static const uint64_t kF64[] = {0x0,
                                  0x8000000000000000,
                                  0x7FF0000000000000,
                                  0x7FF8000000000000,
                                  0xFFF8000000000001,
                                  0x7FF0000000000001,
                                  0x3FF8000000000000,
                                  0xC004000000000000,
                                  0x41F0000000000000,
                                  0xC1E0000000200000,
                                  0x36A0000000000000,
                                  0x47EFFFFFE0000000};
  constexpr uint32_t n = 256, int_results = 11, float_results = 9;
  std::vector<uint8_t> bytes = random_values<uint8_t>(32 * n, 11);
  for (size_t i = 0; i < 32; ++i) bytes[i] = uint8_t(i % 2 ? 0x80 : 0x7F);  // saturating edges first
  std::vector<uint32_t> f(8 * n);
  std::vector<uint64_t> d(4 * n);
  std::mt19937 rng(5);
  for (auto& v : f) v = rng() % 3 ? kF32[rng() % std::size(kF32)] : uint32_t(rng());
  for (auto& v : d) v = rng() % 3 ? kF64[rng() % std::size(kF64)] : (uint64_t(rng()) << 32 | rng());
  auto run = [&](Device device) {
    Module module = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/simd_ops.wasm");
    Buffer<uint8_t> bb = device.upload(bytes);
    Buffer<uint32_t> fb = device.upload(f);
    Buffer<uint64_t> db = device.upload(d);
    Buffer<uint8_t> ints = device.buffer<uint8_t>(size_t(n) * int_results * 16);
    Buffer<uint8_t> floats = device.buffer<uint8_t>(size_t(n) * float_results * 16);
    module.kernel("simd_ints")(n, bb, ints);
    module.kernel("simd_floats")(n, fb, db, floats);
    std::vector<uint8_t> out = ints.read(), more = floats.read();
    out.insert(out.end(), more.begin(), more.end());
    return out;
  };
  const std::vector<uint8_t> cpu = run(open_cpu()), lavapipe = run(open_vulkan());
  const long diff = first_difference(cpu, lavapipe);
  const long int_bytes = long(n) * int_results * 16;
  EXPECT_EQ(diff, -1) << (diff < int_bytes ? "simd_ints item " : "simd_floats item ")
                      << (diff < int_bytes ? diff / (16 * int_results) : (diff - int_bytes) / (16 * float_results))
                      << " result "
                      << (diff < int_bytes ? diff / 16 % int_results : (diff - int_bytes) / 16 % float_results)
                      << " byte " << diff % 16;
  // Some results as the spec defines them, on item 0 (a = b = 7F 80 7F 80 ...).
  auto lane8 = [&](uint32_t result, uint32_t lane) { return cpu[16 * result + lane]; };
  EXPECT_EQ(lane8(0, 0), 0x7F);  // i8x16.add_sat_s(127, 127)
  EXPECT_EQ(lane8(0, 1), 0x80);  // i8x16.add_sat_s(-128, -128)
  EXPECT_EQ(lane8(5, 0), 7);     // i8x16.popcnt(0x7F)
  EXPECT_EQ(lane8(5, 1), 1);     // i8x16.popcnt(0x80)

  // Calls: (v128, v128, i32) -> v128 and (v128) -> f64, as i64 slots.
  const std::vector<std::vector<Value>> mix = {{Value::i64(0x0001000200030004), Value::i64(0x7FFF800000050006),
                                                Value::i64(0x0000000100000002), Value::i64(0x8000000000000003),
                                                Value::i32(1)}};
  const std::vector<std::vector<Value>> sum = {{Value::i64(0x3FF0000000000000), Value::i64(0x4000000000000000)}};
  auto calls = [&](Device device) {
    Module module = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/simd_ops.wasm");
    std::vector<CallResult> out = module.call("v128_mix", mix);
    std::vector<CallResult> more = module.call("v128_sum", sum);
    out.insert(out.end(), more.begin(), more.end());
    return out;
  };
  const std::vector<CallResult> on_cpu = calls(open_cpu()), on_lavapipe = calls(open_vulkan());
  ASSERT_EQ(on_cpu.size(), 2u);
  ASSERT_EQ(on_lavapipe.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(on_cpu[i].trapped) << on_cpu[i].trap;
    EXPECT_EQ(on_cpu[i].values, on_lavapipe[i].values) << i;
  }
  // i16 lanes (4, 3, 2, 1, 6, 5, -32768, 32767) << 1, then -sat (2, 0, 1, 0, 3, 0, 0, -32768):
  // (6, 6, 3, 2, 9, 10, 0, 32766), the low four lanes in the first slot.
  EXPECT_EQ(on_cpu[0].values, (std::vector<Value>{Value::i64(0x0002000300060006), Value::i64(0x7FFE0000000A0009)}));
  EXPECT_EQ(on_cpu[1].values, std::vector<Value>{Value::f64(3.0)});
}

INSTANTIATE_TEST_SUITE_P(OptLevels, CpuDevice, ::testing::Values("O0", "O2"),
                         [](const auto& info) { return std::string(info.param); });

TEST(CpuDeviceTraps, DivisionByZeroAndOverflowReportInvocationAndCount) {
  Device device = open_cpu();
  Module module = device.load_file(e2e_kernel("traps", "O2"));
  std::vector<int32_t> num(100, 7), den(100, 1);
  den[42] = 0;
  den[77] = 0;
  Buffer<int32_t> nb = device.upload(num), db = device.upload(den), out = device.buffer<int32_t>(100);
  try {
    module.kernel("divide")(100, nb, db, out);
    ADD_FAILURE() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_EQ(trap.invocation(), 42u);
    EXPECT_EQ(trap.trapped_invocations(), 2u);
    EXPECT_EQ(trap.trap(), "integer divide by zero");
  }
  std::vector<int32_t> min_num(100, 5), minus_one(100, 2);
  min_num[9] = std::numeric_limits<int32_t>::min();
  minus_one[9] = -1;
  nb.write(std::span<const int32_t>(min_num));
  db.write(std::span<const int32_t>(minus_one));
  try {
    module.kernel("divide")(100, nb, db, out);
    ADD_FAILURE() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_EQ(trap.invocation(), 9u);
    EXPECT_EQ(trap.trapped_invocations(), 1u);
    EXPECT_EQ(trap.trap(), "integer overflow");
  }
  EXPECT_EQ(out.read()[10], 2);  // the other invocations ran: 5 / 2
}

TEST(CpuDeviceTraps, AccessesOutsideEveryBufferTrapWithoutTouchingMemory) {
  Device device = open_cpu();
  Module module = device.load_file(e2e_kernel("traps", "O2"));
  Buffer<uint32_t> data = device.upload(std::vector<uint32_t>{11, 22, 33, 44});
  Buffer<uint32_t> out = device.buffer<uint32_t>(6);
  // The kernel reads *(uint32_t*)address: inside the buffer (twice), past
  // its end, at the top of the space, below the buffers but past the module
  // memory, and straddling the buffer's end.
  Buffer<uint32_t> addresses = device.buffer<uint32_t>(6);
  const uint32_t base = 0x1000'0000u;  // the first buffer of a fresh device
  addresses.write(std::vector<uint32_t>{base, base + 12, base + 16, 0xFFFF'FFF0u, 0x0F00'0000u, base + 13});
  try {
    module.kernel("read_at")(6, addresses, out);
    ADD_FAILURE() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_EQ(trap.trap(), "out of bounds memory access");
    EXPECT_EQ(trap.invocation(), 2u);
    EXPECT_EQ(trap.trapped_invocations(), 4u);
  }
  const std::vector<uint32_t> read = out.read();
  EXPECT_EQ(read[0], 11u);
  EXPECT_EQ(read[1], 44u);
}

TEST(CpuDeviceTraps, UnreachableTrapsOnlyTheInvocationsThatReachIt) {
  Device device = open_cpu();
  Module module = device.load_file(e2e_kernel("traps", "O0"));
  std::vector<uint32_t> flags(300, 0);
  flags[200] = flags[250] = flags[299] = 1;
  Buffer<uint32_t> fb = device.upload(flags), out = device.buffer<uint32_t>(300);
  try {
    module.kernel("trap_when")(300, fb, out);
    ADD_FAILURE() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_EQ(trap.trap(), "unreachable executed");
    EXPECT_EQ(trap.invocation(), 200u);
    EXPECT_EQ(trap.trapped_invocations(), 3u);
  }
}

TEST(CpuDeviceRefusals, WhatItCannotRunYetIsRefusedNamingFunctionAndReason) {
  Device device = open_cpu();
  // A call is one invocation alone: an export that reaches a barrier cannot
  // be called (as a kernel it runs, see the barrier tests).
  Module barriers = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/atomic_ops.wasm");
  try {
    (void)barriers.function_info("barrier_ring");
    ADD_FAILURE() << "barrier_ring was accepted as a call";
  } catch (const Exception& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("export 'barrier_ring' cannot be called"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("barriers or subgroup operations in calls"), std::string::npos) << e.what();
  }
  Exception image = [&] {
    try {
      (void)device.image_2d(4, 4, ImageFormat::Rgba32F);
    } catch (const Exception& e) {
      return e;
    }
    return Exception(ErrorKind::Vulkan, "no exception");
  }();
  EXPECT_EQ(image.kind(), ErrorKind::Unsupported) << image.what();
}

// Each recursive component counts its own active calls: outer 40 deep with
// inner 40 deep below it (82 frames) runs under a limit of 50, and either
// one past the limit traps, naming the invocation.
TEST(CpuDeviceRecursion, EachRecursiveComponentHasItsOwnCallDepth) {
  Device device = open_cpu();
  ModuleOptions options;
  options.max_call_depth = 50;
  Module module = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/nested_recursion.wasm", options);
  Kernel nested = module.kernel("nested_depth");
  Buffer<uint32_t> depths = device.upload(std::vector<uint32_t>{40, 40, 50, 0, 0, 50, 3, 7});
  Buffer<uint32_t> out = device.buffer<uint32_t>(4);
  nested(4, depths, out);
  EXPECT_EQ(out.read(), (std::vector<uint32_t>{120, 50, 100, 17}));
  for (const std::vector<uint32_t>& too_deep :
       {std::vector<uint32_t>{2, 2, 51, 0}, std::vector<uint32_t>{2, 2, 0, 51}}) {
    Buffer<uint32_t> in = device.upload(too_deep);
    try {
      nested(2, in, out);
      ADD_FAILURE() << "no trap";
    } catch (const TrapError& trap) {
      EXPECT_EQ(trap.trap(), "call stack exhausted");
      EXPECT_EQ(trap.invocation(), 1u);
      EXPECT_EQ(trap.trapped_invocations(), 1u);
    }
  }
}

// Tail calls: where the callee's signature is the caller's, return_call is a
// musttail call, so a million-deep self tail recursion and return_call_indirect
// chain run at one depth; a tail call to another signature is a call and a
// ret, which counts towards the depth: a long chain of them traps call stack
// exhausted cleanly rather than running out of native stack.
TEST(CpuDeviceRecursion, TailCallsOfTheCallersSignatureTakeNoFrame) {
  Device device = open_cpu();
  Module module = device.load(frontend::testing::wat_to_wasm(R"((module
  (type $t (func (param i64) (result i64)))
  (table funcref (elem $down))
  (func $count (export "count") (param i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0)) (then (i64.const 5))
      (else (return_call $count (i64.sub (local.get 0) (i64.const 1))))))
  (func $down (export "down") (type $t)
    (if (result i64) (i64.eqz (local.get 0)) (then (i64.const 9))
      (else (return_call_indirect (type $t) (i64.sub (local.get 0) (i64.const 1)) (i32.const 0)))))
  (func $a (export "a") (param i64) (result i64)
    (if (result i64) (i64.eqz (local.get 0)) (then (i64.const 7))
      (else (return_call $b (i64.sub (local.get 0) (i64.const 1)) (i32.const 1)))))
  (func $b (param i64 i32) (result i64) (return_call $a (local.get 0))))
)"));
  auto one = [&](const char* name, uint64_t n) {
    return module.call(name, std::vector<std::vector<Value>>{{Value::i64(n)}}).at(0);
  };
  for (const char* name : {"count", "down"}) {
    const CallResult deep = one(name, 1'000'000);
    ASSERT_FALSE(deep.trapped) << name << ": " << deep.trap;
    EXPECT_EQ(deep.values, std::vector<Value>{Value::i64(std::string(name) == "count" ? 5 : 9)}) << name;
  }
  // $a and $b: two calls per step, within the default depth of 1024 up to 511 steps.
  const CallResult shallow = one("a", 500);
  ASSERT_FALSE(shallow.trapped) << shallow.trap;
  EXPECT_EQ(shallow.values, std::vector<Value>{Value::i64(7)});
  const CallResult exhausted = one("a", 1'000'000);
  ASSERT_TRUE(exhausted.trapped);
  EXPECT_EQ(exhausted.trap, "call stack exhausted");
}

// Vectorised calls: a large batch of calls without side effects spreads over
// the workers and gives every call its own result; calls with side effects
// run one after another in their order, on the module's instance state.
TEST(CpuDeviceCalls, BatchesGiveEachCallItsResultAndSideEffectsRunInOrder) {
  Device device = open_cpu();
  Module functions = device.load_file(std::string(WASMGPU_API_KERNELS_DIR) + "/functions.wasm");
  std::mt19937 random(7);
  std::vector<std::vector<Value>> pairs;
  for (int i = 0; i < 3000; ++i) pairs.push_back({Value::i32(uint32_t(random())), Value::i32(uint32_t(random()))});
  const std::vector<CallResult> sums = functions.call("add", pairs);
  ASSERT_EQ(sums.size(), pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    ASSERT_FALSE(sums[i].trapped) << i;
    EXPECT_EQ(sums[i].values, std::vector<Value>{Value::i32(uint32_t(pairs[i][0].bits + pairs[i][1].bits))}) << i;
  }
  std::vector<std::vector<Value>> ones(100, std::vector<Value>{Value::i32(1)});
  const std::vector<CallResult> totals = functions.call("accumulate", ones);
  ASSERT_EQ(totals.size(), ones.size());
  for (size_t i = 0; i < totals.size(); ++i)
    EXPECT_EQ(totals[i].values, std::vector<Value>{Value::i32(uint32_t(i + 1))}) << i;
}

// Examples and bench-style kernels: the cpu device's output bytes equal
// lavapipe's in exact mode.
template <class Run>
void expect_same_on_both(Run&& run) {
  std::vector<uint8_t> cpu = run(open_cpu());
  std::vector<uint8_t> lavapipe = run(open_vulkan());
  ASSERT_FALSE(cpu.empty());
  EXPECT_EQ(first_difference(cpu, lavapipe), -1);
}

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

TEST(CpuDeviceMatchesLavapipe, Saxpy) {
  const std::vector<float> x = test_floats(10000, 1), y = test_floats(10000, 2);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("saxpy"));
    Buffer<float> xb = device.upload(x), yb = device.upload(y);
    module.kernel("saxpy")(10000, 2.5f, xb, yb);
    return bytes_of(yb.read());
  });
}

TEST(CpuDeviceMatchesLavapipe, Mandelbrot) {
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("mandelbrot"));
    const int width = 96, height = 64;
    Buffer<uint32_t> rgba = device.buffer<uint32_t>(width * height);
    module.kernel("mandelbrot")(width * height, rgba, width, height, 200, 3.0f / width);
    return bytes_of(rgba.read());
  });
}

TEST(CpuDeviceMatchesLavapipe, BenchTriadStencilJacobiAndExpF64) {
  const std::vector<float> b = test_floats(5000, 3), c = test_floats(5000, 4);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(bench_kernel("triad"));
    Buffer<float> ab = device.buffer<float>(5000), bb = device.upload(b), cb = device.upload(c);
    module.kernel("triad")(5000, ab, bb, cb, 0.75f, 4990u);
    return bytes_of(ab.read());
  });
  const std::vector<float> field = test_floats(64 * 48, 9);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(bench_kernel("stencil"));
    Buffer<float> in = device.upload(field), out = device.buffer<float>(64 * 48);
    module.kernel("stencil")(Launch::grid({8, 6, 1}, {8, 8, 1}), in, out, 64u, 48u);
    return bytes_of(out.read());
  });
  const std::vector<float> grid = test_floats(40 * 24, 5);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("jacobi"));
    Buffer<float> in = device.upload(grid), out = device.buffer<float>(40 * 24);
    module.kernel("jacobi_step")(Launch::grid({5, 3, 1}, {8, 8, 1}), in, out, 40u, 24u);
    return bytes_of(out.read());
  });
  const std::vector<double> x = test_doubles(1000, 6);
  std::vector<double> small(x.size());
  for (size_t i = 0; i < x.size(); ++i) small[i] = std::fmod(x[i], 4.0);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("double_precision"));
    Buffer<double> xb = device.upload(small), y = device.buffer<double>(2000);  // two results each
    Buffer<int64_t> bits = device.buffer<int64_t>(1000);
    module.kernel("exp_taylor")(1000, xb, y, bits);
    std::vector<uint8_t> out = bytes_of(y.read());
    std::vector<uint8_t> more = bytes_of(bits.read());
    out.insert(out.end(), more.begin(), more.end());
    return out;
  });
}

TEST(CpuDeviceMatchesLavapipe, CommandBuffersRunInOrder) {
  const std::vector<float> x = test_floats(4096, 7), y = test_floats(4096, 8);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("saxpy"));
    Kernel saxpy = module.kernel("saxpy");
    Buffer<float> xb = device.upload(x), yb = device.upload(y);
    CommandBuffer commands = device.command_buffer();
    commands.launch(saxpy, 4096, 2.0f, xb, yb);
    commands.launch(saxpy, 4096, 3.0f, yb, xb);
    commands.submit().wait(std::chrono::seconds(60));
    return bytes_of(xb.read());
  });
}

// Workgroups with shared memory, barriers (fibers) and atomics: examples,
// bench kernels and the e2e atomics kernel, byte for byte against lavapipe.
TEST(CpuWorkgroupsMatchLavapipe, HistogramExampleAndBenchHistogram) {
  std::vector<uint8_t> data(20011);
  std::mt19937 rng(11);
  for (uint8_t& byte : data) byte = uint8_t(rng() % 7 == 0 ? 200 : rng());
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("histogram"));
    Buffer<uint8_t> in = device.upload(data);
    Buffer<int32_t> bins = device.buffer<int32_t>(256);
    module.kernel("histogram")(Launch::grid({6, 1, 1}, {64, 1, 1}), in, uint32_t(data.size()), bins);
    return bytes_of(bins.read());
  });
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(bench_kernel("histogram"));
    Buffer<uint8_t> in = device.upload(data);
    Buffer<int32_t> bins = device.buffer<int32_t>(256);
    module.kernel("histogram")(Launch::grid({5, 1, 1}, {256, 1, 1}), in, uint32_t(data.size()), bins);
    return bytes_of(bins.read());
  });
}

TEST(CpuWorkgroupsMatchLavapipe, MatmulTilesAndBenchSgemm) {
  const uint32_t m = 40, n = 24, k = 37;
  const std::vector<float> a = test_floats(m * k, 12), b = test_floats(k * n, 13);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("matmul"));
    Buffer<float> ab = device.upload(a), bb = device.upload(b), c = device.buffer<float>(m * n);
    module.kernel("matmul")(Launch::grid({(n + 15) / 16, (m + 15) / 16, 1}, {16, 16, 1}), ab, bb, c, m, n, k);
    return bytes_of(c.read());
  });
  const uint32_t size = 128;  // one tile of 128: 256 invocations, 16 steps of two barriers
  std::vector<float> sa(size * size), sb(size * size);
  std::mt19937 rng(14);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (float& v : sa) v = unit(rng);
  for (float& v : sb) v = unit(rng);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(bench_kernel("sgemm"));
    Buffer<float> ab = device.upload(sa), bb = device.upload(sb), c = device.buffer<float>(size * size);
    module.kernel("sgemm")(Launch::grid({size / 128, size / 128, 1}, {256, 1, 1}), ab, bb, c, size);
    return bytes_of(c.read());
  });
}

TEST(CpuWorkgroupsMatchLavapipe, ScanAndBenchReduction) {
  const uint32_t n = 3000, group = 256, groups = (n + group - 1) / group;
  const std::vector<uint32_t> values = random_values<uint32_t>(n, 15);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(example_kernel("scan"));
    Buffer<uint32_t> in = device.upload(values), out = device.buffer<uint32_t>(n),
                     sums = device.buffer<uint32_t>(groups);
    module.kernel("scan_block")(Launch::grid({groups, 1, 1}, {group, 1, 1}), in, out, sums, n);
    std::vector<uint8_t> bytes = bytes_of(out.read()), more = bytes_of(sums.read());
    bytes.insert(bytes.end(), more.begin(), more.end());
    return bytes;
  });
  const std::vector<float> floats = test_floats(50000, 16);
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(bench_kernel("reduce"));
    Buffer<float> in = device.upload(floats), partial = device.buffer<float>(7);
    module.kernel("reduce")(Launch::grid({7, 1, 1}, {256, 1, 1}), in, uint32_t(floats.size()), partial);
    return bytes_of(partial.read());
  });
}

// The e2e suite's threads-proposal atomics (C11 atomics, -matomics): shared
// and device words of 1, 2, 4 and 8 bytes, a compare-exchange loop, barriers.
TEST_P(CpuDevice, C11AtomicsHistogramMatchesLavapipe) {
  constexpr uint32_t kWorkgroup = 64, kGroups = 12;
  const uint32_t n = kWorkgroup * kGroups - 17;
  std::vector<uint32_t> values = random_values<uint32_t>(n, 17);
  for (uint32_t& v : values) v %= 100000;
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(e2e_kernel("atomics", GetParam()));
    Buffer<uint32_t> in = device.upload(values), bins = device.buffer<uint32_t>(64),
                     parity = device.buffer<uint32_t>(64);
    Buffer<uint64_t> sum = device.buffer<uint64_t>(1);
    Buffer<int64_t> max = device.upload(std::vector<int64_t>{-1});
    Buffer<uint16_t> halves = device.buffer<uint16_t>(16);
    Buffer<uint8_t> seen = device.buffer<uint8_t>(32);
    module.kernel("atomic_histogram")(Launch::grid({kGroups, 1, 1}, {kWorkgroup, 1, 1}), in, n, bins, parity, sum, max,
                                      halves, seen);
    std::vector<uint8_t> out = bytes_of(bins.read());
    for (const std::vector<uint8_t>& more : {bytes_of(parity.read()), bytes_of(sum.read()), bytes_of(max.read()),
                                             bytes_of(halves.read()), bytes_of(seen.read())})
      out.insert(out.end(), more.begin(), more.end());
    return out;
  });
}

TEST(CpuWorkgroups, MisalignedAtomicsTrapAndNotifyWakesNone) {
  Device device = open_cpu();
  Module module = device.load_file(e2e_kernel("atomics", "O2"));
  Buffer<uint8_t> p = device.buffer<uint8_t>(4 * 64 + 8);
  try {
    module.kernel("misaligned_atomic")(Launch::invocations(64, 64), p);
    ADD_FAILURE() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_EQ(trap.trap(), "out of bounds memory access");
    EXPECT_EQ(trap.invocation(), 5u);
    EXPECT_EQ(trap.trapped_invocations(), 1u);
  }
  Buffer<int32_t> words = device.buffer<int32_t>(16);
  Buffer<uint32_t> woken = device.upload(std::vector<uint32_t>(16, 99));
  module.kernel("atomic_notify")(16, words, woken, 0);
  EXPECT_EQ(woken.read(), std::vector<uint32_t>(16, 0));
  try {
    module.kernel("atomic_notify")(16, words, woken, 1);
    ADD_FAILURE() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_EQ(trap.invocation(), 5u);
    EXPECT_EQ(trap.trapped_invocations(), 1u);
  }
}

TEST(CpuWorkgroupsMatchLavapipe, EveryWasmgpuAtomicOnBufferAndSharedWords) {
  constexpr uint32_t kOps = 12, kGroup = 64, kGroups = 5, n = kGroup * kGroups;
  std::vector<int32_t> values = random_values<int32_t>(n, 18);
  for (size_t i = 0; i < values.size(); i += 3) values[i] %= 1000;  // small ones too, for the f32 add
  std::vector<int32_t> initial = random_values<int32_t>(size_t(n) * kOps, 19);
  for (size_t i = 11; i < initial.size(); i += kOps) {
    const float f = float(int(i) % 977) * 0.5f;  // f32 words: finite floats
    std::memcpy(&initial[i], &f, 4);
  }
  for (size_t i = 0; i < n; ++i) initial[i * kOps + 10] = values[i] & 1 ? initial[i * kOps + 10] : values[i] - 1;
  std::vector<uint8_t> cpu_bytes;
  expect_same_on_both([&](Device device) {
    Module module = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/atomic_ops.wasm");
    Buffer<int32_t> words = device.upload(initial), old = device.buffer<int32_t>(n * kOps),
                    totals = device.upload(std::vector<int32_t>{0, std::numeric_limits<int32_t>::max(),
                                                                std::numeric_limits<int32_t>::min()}),
                    in = device.upload(values), shared_old = device.buffer<int32_t>(n * kOps),
                    shared_words = device.buffer<int32_t>(n * kOps), shared_totals = device.buffer<int32_t>(kGroups);
    module.kernel("atomic_ops")(Launch::grid({kGroups, 1, 1}, {kGroup, 1, 1}), words, old, totals, in, shared_old,
                                shared_words, shared_totals);
    std::vector<uint8_t> out = bytes_of(words.read());
    for (const std::vector<uint8_t>& more : {bytes_of(old.read()), bytes_of(totals.read()), bytes_of(shared_old.read()),
                                             bytes_of(shared_words.read()), bytes_of(shared_totals.read())})
      out.insert(out.end(), more.begin(), more.end());
    if (device.info().name == "cpu") cpu_bytes = out;
    return out;
  });
  // Some of it by hand: the old values are the initial words, the total the sum.
  ASSERT_GE(cpu_bytes.size(), size_t(n) * kOps * 8 + 12);
  int32_t first_old = 0, total = 0;
  std::memcpy(&first_old, cpu_bytes.data() + size_t(n) * kOps * 4, 4);
  std::memcpy(&total, cpu_bytes.data() + size_t(n) * kOps * 8, 4);
  EXPECT_EQ(first_old, initial[0]);
  int32_t expected_total = 0;
  for (int32_t v : values) expected_total = int32_t(uint32_t(expected_total) + uint32_t(v));
  EXPECT_EQ(total, expected_total);
}

TEST(CpuWorkgroupsMatchLavapipe, BarrierHeavyRing) {
  for (uint32_t group : {1u, 7u, 64u, 256u}) {
    const uint32_t groups = 3;
    expect_same_on_both([&](Device device) {
      Module module = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/atomic_ops.wasm");
      Buffer<uint32_t> out = device.buffer<uint32_t>(group * groups);
      module.kernel("barrier_ring")(Launch::grid({groups, 1, 1}, {group, 1, 1}), 50u, out);
      return bytes_of(out.read());
    });
  }
}

// Subgroups of 8 (lavapipe's size too): every operation, byte for byte.
TEST(CpuWorkgroupsMatchLavapipe, EverySubgroupOperation) {
  constexpr uint32_t kResults = 20;
  std::vector<int32_t> values = random_values<int32_t>(64 * 3, 20);
  for (size_t i = 0; i < values.size(); i += 4) values[i] %= 100;
  for (uint32_t group : {64u, 24u}) {
    expect_same_on_both([&](Device device) {
      EXPECT_EQ(device.info().subgroup_size, 8u) << device.info().name;
      Module module = device.load_file(std::string(WASMGPU_CPU_KERNELS_DIR) + "/subgroups.wasm");
      Buffer<int32_t> in = device.upload(values);
      Buffer<uint32_t> out = device.buffer<uint32_t>(values.size() * kResults);
      module.kernel("subgroup_ops")(Launch::grid({uint32_t(values.size()) / group, 1, 1}, {group, 1, 1}), in, out);
      return bytes_of(out.read());
    });
  }
}

// The reduction example (a subgroup float sum, shared memory, a barrier):
// float sums in a device's own order, so within a bound of the exact sum.
TEST(CpuWorkgroups, ReductionExampleSumsWithinABound) {
  const std::vector<float> values = test_floats(20000, 21);
  std::vector<float> small(values.size());
  for (size_t i = 0; i < values.size(); ++i) small[i] = std::fmod(values[i], 16.0f);
  double exact = 0, magnitude = 0;
  for (float v : small) exact += v, magnitude += std::fabs(v);
  Device device = open_cpu();
  Module module = device.load_file(example_kernel("reduction"));
  Buffer<float> in = device.upload(small), partial = device.buffer<float>(16), total = device.buffer<float>(1);
  Kernel reduce = module.kernel("reduce_sum");
  reduce(Launch::grid({16, 1, 1}, {128, 1, 1}), in, uint32_t(small.size()), partial);
  reduce(Launch::grid({1, 1, 1}, {16, 1, 1}), partial, 16u, total);
  // Each partial sum rounds at most once per addition: n * 2^-24 of the magnitudes.
  EXPECT_NEAR(total.read()[0], exact, magnitude * double(small.size()) * 0x1p-24);
  EXPECT_NE(total.read()[0], 0.0f);
}

}  // namespace
}  // namespace wasmgpu
