// Float modes on the device: exact mode must give WebAssembly's bits for
// every input, checked bit for bit against the host's IEEE arithmetic (x86-64
// SSE: correctly rounded, subnormals kept) over edge cases (zeros,
// subnormals, ties, huge and tiny quotients, infinities, NaNs) and random
// operands. A device that rounds correctly and keeps subnormals (lavapipe)
// passes in fast mode too; on other devices only exact mode must.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/module.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using spirv::FloatMode;
using testing::VulkanTest;

using testing::wat_to_wasm;

// One export per operation: "<type>.<op>" taking its operands, returning the result.
std::string ops_module() {
  std::string wat = "(module\n";
  for (std::string t : {"f32", "f64"}) {
    for (std::string op : {"add", "sub", "mul", "div", "min", "max"})
      wat += "(func (export \"" + t + "." + op + "\") (param " + t + " " + t + ") (result " + t + ") (" + t + "." + op +
             " (local.get 0) (local.get 1)))\n";
    for (std::string op : {"eq", "ne", "lt", "gt", "le", "ge"})
      wat += "(func (export \"" + t + "." + op + "\") (param " + t + " " + t + ") (result i32) (" + t + "." + op +
             " (local.get 0) (local.get 1)))\n";
    for (std::string op : {"sqrt", "ceil", "floor", "trunc", "nearest"})
      wat += "(func (export \"" + t + "." + op + "\") (param " + t + ") (result " + t + ") (" + t + "." + op +
             " (local.get 0)))\n";
  }
  wat += "(func (export \"f64.promote\") (param f32) (result f64) (f64.promote_f32 (local.get 0)))\n";
  wat += "(func (export \"f32.demote\") (param f64) (result f32) (f32.demote_f64 (local.get 0)))\n";
  return wat + ")\n";
}

std::vector<uint32_t> f32_inputs() {
  std::vector<uint32_t> v = {
      0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x00000003, 0x007FFFFF, 0x807FFFFF, 0x00400000,
      0x00400001, 0x00800000, 0x80800000, 0x00800001, 0x00FFFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF,
      0x3FC00000, 0x40400000, 0x3F000000, 0x3E800000, 0x33800000, 0x33800001, 0x39800000, 0x3F801000, 0x7F7FFFFF,
      0xFF7FFFFF, 0x7F000000, 0x0C000000, 0x72000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FA00000,
      0x7FC00123, 0x40490FDB, 0x34000000, 0x00000005,
      // Rounding edges: 2^23 - 0.5, -3.5, ±2.5, ±0.5, the float below 0.5,
      // 2^23 + 1, 2^24 - 1.
      0x4AFFFFFF, 0xCAFFFFFF, 0xC0600000, 0x40200000, 0xC0200000, 0xBF000000, 0x3EFFFFFF, 0x4B000001, 0x4B7FFFFF};
  std::mt19937 rng(1234);
  for (int i = 0; i < 24; ++i) v.push_back(rng());
  for (int i = 0; i < 12; ++i) v.push_back(rng() & 0x807FFFFF);  // subnormals
  return v;
}

std::vector<uint64_t> f64_inputs() {
  std::vector<uint64_t> v = {0, 0x8000000000000000, 1, 0x8000000000000001, 2, 3, 0x000FFFFFFFFFFFFF, 0x0008000000000000,
                             0x0010000000000000, 0x0010000000000001, 0x3FF0000000000000, 0xBFF0000000000000,
                             0x3FF0000000000001, 0x3FEFFFFFFFFFFFFF, 0x3FF8000000000000, 0x4008000000000000,
                             0x3FE0000000000000, 0x3CA0000000000000, 0x3FF0000004000000, 0x7FEFFFFFFFFFFFFF,
                             0xFFEFFFFFFFFFFFFF, 0x7FE0000000000000, 0x0360000000000000, 0x7C60000000000000,
                             0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000,
                             0x7FF4000000000000, 0x7FF8000000000123, 0x400921FB54442D18, 0x3810000000000000,
                             0x36A0000000000000, 0x47EFFFFFE0000000, 0x380FFFFFF0000000, 0x3690000000000000,
                             // Rounding edges: ±(2^52 - 0.5) (lavapipe's trunc and nearest gave it
                             // back on one CPU), -3.5, 2.5, -0.5, the double below 0.5, 2^52 + 1, a
                             // value whose trunc one driver left unchanged.
                             0x432FFFFFFFFFFFFF, 0xC32FFFFFFFFFFFFF, 0xC00C000000000000, 0x4004000000000000,
                             0xBFE0000000000000, 0x3FDFFFFFFFFFFFFF, 0x4330000000000001, 0xC25DEF3841B53F3D};
  std::mt19937_64 rng(99);
  for (int i = 0; i < 24; ++i) v.push_back(rng());
  for (int i = 0; i < 12; ++i) v.push_back(rng() & 0x800FFFFFFFFFFFFF);
  return v;
}

// wasm's result check: equal bits, or both NaN where a NaN result must be
// canonical when no operand is a NaN (arithmetic, i.e. quiet, otherwise).
bool matches(uint64_t got, uint64_t want, int width, bool input_nan) {
  uint64_t sign = uint64_t(1) << (width - 1);
  uint64_t inf = width == 32 ? 0x7F800000 : 0x7FF0000000000000;
  uint64_t quiet = width == 32 ? 0x400000 : 0x8000000000000;
  bool want_nan = (want & (sign - 1)) > inf;
  if (!want_nan) return got == want;
  uint64_t mag = got & (sign - 1);
  if (mag <= inf) return false;
  return input_nan ? (mag & quiet) != 0 : mag == (inf | quiet);
}

// Units in the last place between two finite values' bits (same sign, or
// both zeros); UINT64_MAX otherwise.
uint64_t ulp_distance(uint64_t got, uint64_t want, int width) {
  const uint64_t sign = uint64_t(1) << (width - 1);
  if (((got | want) & (sign - 1)) == 0) return 0;
  if ((got & sign) != (want & sign)) return UINT64_MAX;
  return got > want ? got - want : want - got;
}

template <typename F>
uint64_t bits_of(F v) {
  if constexpr (sizeof(F) == 4)
    return std::bit_cast<uint32_t>(v);
  else
    return std::bit_cast<uint64_t>(v);
}

template <typename F>
F wasm_min_max(F a, F b, bool is_min) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  if (a == 0 && b == 0) return (std::signbit(a) == is_min) ? a : b;
  return is_min ? (a < b ? a : b) : (a > b ? a : b);
}

class FloatModesTest : public VulkanTest {
 protected:
  // Runs `name` over `tuples` and counts results that differ from `want`.
  template <typename In, typename Out>
  int check(Module& m, const std::string& name, const std::vector<std::vector<In>>& tuples,
            const std::function<Out(const std::vector<In>&)>& want, bool only_normal = false) {
    std::vector<std::vector<Value>> args;
    for (const auto& t : tuples) {
      std::vector<Value> a;
      for (In x : t)
        a.push_back(sizeof(In) == 4 ? Value{wasm::ValType::F32, bits_of(x)} : Value{wasm::ValType::F64, bits_of(x)});
      args.push_back(a);
    }
    auto results = m.call(name, args);
    EXPECT_TRUE(results.ok()) << name << ": " << (results.ok() ? "" : results.error().to_string());
    if (!results.ok()) return 1;
    int wrong = 0;
    for (size_t i = 0; i < tuples.size(); ++i) {
      bool input_nan = false, input_subnormal = false;
      for (In x : tuples[i]) {
        input_nan |= std::isnan(x);
        input_subnormal |= std::fpclassify(x) == FP_SUBNORMAL;
      }
      Out expected = want(tuples[i]);
      if (only_normal && (input_nan || input_subnormal || std::fpclassify(expected) == FP_SUBNORMAL)) continue;
      uint64_t got = (*results)[i].values.at(0).bits;
      bool ok = false;
      if constexpr (std::is_same_v<Out, int>) {
        ok = got == uint64_t(expected);
      } else if (only_normal) {
        // Fast mode promises the device's arithmetic: any NaN for a NaN
        // result (NVIDIA's has every payload bit set), Vulkan's precision
        // for division (2.5 ulp) and square root (from inversesqrt), and a
        // device that flushes subnormals may flush a result that IEEE rounds
        // up to the smallest normal number.
        if (std::isnan(expected)) {
          const uint64_t sign = uint64_t(1) << (sizeof(Out) * 8 - 1);
          ok = (got & (sign - 1)) > bits_of(std::numeric_limits<Out>::infinity());
        } else if (std::fabs(expected) == std::numeric_limits<Out>::min()) {
          continue;
        } else {
          const bool approximate = name.ends_with(".div") || name.ends_with(".sqrt");
          ok = ulp_distance(got, bits_of(expected), int(sizeof(Out) * 8)) <= (approximate ? 4u : 0u);
        }
      } else {
        ok = matches(got, bits_of(expected), int(sizeof(Out) * 8), input_nan);
      }
      if (!ok && ++wrong <= 5) {
        ADD_FAILURE() << name << std::hex << " operands";
        for (In x : tuples[i]) std::cerr << " 0x" << std::hex << bits_of(x);
        std::cerr << " -> 0x" << got << ", want 0x" << uint64_t(bits_of(expected)) << std::dec << "\n";
      }
    }
    return wrong;
  }

  template <typename F>
  std::vector<std::vector<F>> pairs(const std::vector<F>& values, std::mt19937_64& rng, int random) {
    std::vector<std::vector<F>> out;
    for (F a : values)
      for (F b : values) out.push_back({a, b});
    using Bits = std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>;
    for (int i = 0; i < random; ++i) {
      Bits a = Bits(rng()), b = Bits(rng());
      if (i % 4 == 1) b = (b & ~(Bits(0x7FF) << (sizeof(F) * 8 - 12))) | (a & (Bits(0x7FF) << (sizeof(F) * 8 - 12)));
      out.push_back({std::bit_cast<F>(a), std::bit_cast<F>(b)});
    }
    return out;
  }

  // Every operation over edge cases and random operands; returns the mismatches.
  int run_all(FloatMode mode, bool only_normal, bool f64_subnormals_native = true) {
    spirv::CompileOptions options;
    options.float_mode = mode;
    options.f64_subnormals_native = f64_subnormals_native;
    auto loaded = Module::load(*device, wat_to_wasm(ops_module()), options);
    EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().to_string());
    if (!loaded.ok()) return 1;
    Module& m = *loaded;
    std::mt19937_64 rng(7);
    std::vector<float> f32s;
    for (uint32_t b : f32_inputs()) f32s.push_back(std::bit_cast<float>(b));
    std::vector<double> f64s;
    for (uint64_t b : f64_inputs()) f64s.push_back(std::bit_cast<double>(b));
    auto p32 = pairs(f32s, rng, 4000);
    auto p64 = pairs(f64s, rng, 4000);
    std::vector<std::vector<float>> u32s;
    for (const auto& p : p32) u32s.push_back({p[0]});
    std::vector<std::vector<double>> u64s;
    for (const auto& p : p64) u64s.push_back({p[0]});
    int wrong = 0;
    using V32 = std::vector<float>;
    using V64 = std::vector<double>;
    using F32 = std::function<float(const V32&)>;
    using F64 = std::function<double(const V64&)>;
    using C32 = std::function<int(const V32&)>;
    using C64 = std::function<int(const V64&)>;
    wrong += check(m, "f32.add", p32, F32([](const V32& v) { return v[0] + v[1]; }), only_normal);
    wrong += check(m, "f32.sub", p32, F32([](const V32& v) { return v[0] - v[1]; }), only_normal);
    wrong += check(m, "f32.mul", p32, F32([](const V32& v) { return v[0] * v[1]; }), only_normal);
    wrong += check(m, "f32.div", p32, F32([](const V32& v) { return v[0] / v[1]; }), only_normal);
    wrong += check(m, "f32.min", p32, F32([](const V32& v) { return wasm_min_max(v[0], v[1], true); }), only_normal);
    wrong += check(m, "f32.max", p32, F32([](const V32& v) { return wasm_min_max(v[0], v[1], false); }), only_normal);
    wrong += check(m, "f32.sqrt", u32s, F32([](const V32& v) { return std::sqrt(v[0]); }), only_normal);
    wrong += check(m, "f32.ceil", u32s, F32([](const V32& v) { return std::ceil(v[0]); }), only_normal);
    wrong += check(m, "f32.floor", u32s, F32([](const V32& v) { return std::floor(v[0]); }), only_normal);
    wrong += check(m, "f32.trunc", u32s, F32([](const V32& v) { return std::trunc(v[0]); }), only_normal);
    wrong += check(m, "f32.nearest", u32s, F32([](const V32& v) { return std::nearbyint(v[0]); }), only_normal);
    wrong += check(m, "f32.eq", p32, C32([](const V32& v) { return int(v[0] == v[1]); }), only_normal);
    wrong += check(m, "f32.ne", p32, C32([](const V32& v) { return int(v[0] != v[1]); }), only_normal);
    wrong += check(m, "f32.lt", p32, C32([](const V32& v) { return int(v[0] < v[1]); }), only_normal);
    wrong += check(m, "f32.gt", p32, C32([](const V32& v) { return int(v[0] > v[1]); }), only_normal);
    wrong += check(m, "f32.le", p32, C32([](const V32& v) { return int(v[0] <= v[1]); }), only_normal);
    wrong += check(m, "f32.ge", p32, C32([](const V32& v) { return int(v[0] >= v[1]); }), only_normal);
    wrong += check(m, "f64.promote", u32s, std::function<double(const V32&)>([](const V32& v) { return double(v[0]); }),
                   only_normal);
    wrong += check(m, "f64.add", p64, F64([](const V64& v) { return v[0] + v[1]; }), only_normal);
    wrong += check(m, "f64.sub", p64, F64([](const V64& v) { return v[0] - v[1]; }), only_normal);
    wrong += check(m, "f64.mul", p64, F64([](const V64& v) { return v[0] * v[1]; }), only_normal);
    wrong += check(m, "f64.div", p64, F64([](const V64& v) { return v[0] / v[1]; }), only_normal);
    wrong += check(m, "f64.min", p64, F64([](const V64& v) { return wasm_min_max(v[0], v[1], true); }), only_normal);
    wrong += check(m, "f64.max", p64, F64([](const V64& v) { return wasm_min_max(v[0], v[1], false); }), only_normal);
    wrong += check(m, "f64.sqrt", u64s, F64([](const V64& v) { return std::sqrt(v[0]); }), only_normal);
    wrong += check(m, "f64.ceil", u64s, F64([](const V64& v) { return std::ceil(v[0]); }), only_normal);
    wrong += check(m, "f64.floor", u64s, F64([](const V64& v) { return std::floor(v[0]); }), only_normal);
    wrong += check(m, "f64.trunc", u64s, F64([](const V64& v) { return std::trunc(v[0]); }), only_normal);
    wrong += check(m, "f64.nearest", u64s, F64([](const V64& v) { return std::nearbyint(v[0]); }), only_normal);
    wrong += check(m, "f64.eq", p64, C64([](const V64& v) { return int(v[0] == v[1]); }), only_normal);
    wrong += check(m, "f64.ne", p64, C64([](const V64& v) { return int(v[0] != v[1]); }), only_normal);
    wrong += check(m, "f64.lt", p64, C64([](const V64& v) { return int(v[0] < v[1]); }), only_normal);
    wrong += check(m, "f64.gt", p64, C64([](const V64& v) { return int(v[0] > v[1]); }), only_normal);
    wrong += check(m, "f64.le", p64, C64([](const V64& v) { return int(v[0] <= v[1]); }), only_normal);
    wrong += check(m, "f64.ge", p64, C64([](const V64& v) { return int(v[0] >= v[1]); }), only_normal);
    wrong += check(m, "f32.demote", u64s, std::function<float(const V64&)>([](const V64& v) { return float(v[0]); }),
                   only_normal);
    return wrong;
  }
};

TEST_F(FloatModesTest, ExactModeGivesWasmBits) { EXPECT_EQ(run_all(FloatMode::Exact, false), 0); }

// The lowering for devices that may flush f64 subnormals (the runtime picks
// it from the device probe): f64 + - * keep the native result only where no
// subnormal can be involved and compute the rest on integers. On a device
// that keeps subnormals both paths give IEEE's bits, so every operand here
// checks the integer code whenever the native test sends it there.
TEST_F(FloatModesTest, ExactModeWithoutNativeF64SubnormalsGivesWasmBits) {
  EXPECT_EQ(run_all(FloatMode::Exact, false, /*f64_subnormals_native=*/false), 0);
}

// Exact mode lowers a run of f32 + - * with one test for the run
// (float_exact.cpp): when a member needs the slow path, every member is
// redone from the redone results before it. Expressions of three and four
// operations over edge operands (zeros, subnormals, NaNs, huge and tiny
// values) against the host's IEEE arithmetic. lavapipe's native results are
// IEEE's, so there this checks the runs' code; on a GPU whose default NaN is
// not canonical (NVIDIA's 0x7FFFFFFF), an `inf - inf` early in a run checks
// that later members are redone from the settled NaN.
TEST_F(FloatModesTest, ExactRunsOfArithmeticGiveWasmBits) {
  spirv::CompileOptions options;
  options.float_mode = FloatMode::Exact;
  auto loaded = Module::load(*device, wat_to_wasm(R"((module
    (func (export "mad") (param f32 f32 f32) (result f32)
      (f32.add (f32.mul (local.get 0) (local.get 1)) (local.get 2)))
    (func (export "chain") (param f32 f32 f32) (result f32)
      (f32.sub (f32.mul (f32.add (local.get 0) (local.get 1)) (local.get 2)) (f32.mul (local.get 0) (local.get 2))))
    ;; A load and integer arithmetic inside the run (the word at 64 is +0.0).
    (memory 1)
    (func (export "mad_load") (param f32 f32 f32) (result f32)
      (f32.add (f32.mul (local.get 0) (local.get 1))
               (f32.add (local.get 2) (f32.load (i32.add (i32.const 60) (i32.const 4)))))))
  )"),
                             options);
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  std::vector<uint32_t> edges = f32_inputs();
  std::mt19937_64 rng(11);
  std::vector<std::vector<float>> triples;
  for (int i = 0; i < 20000; ++i) {
    std::vector<float> t;
    for (int k = 0; k < 3; ++k) t.push_back(std::bit_cast<float>(edges[rng() % edges.size()]));
    triples.push_back(t);
  }
  using V = std::vector<float>;
  EXPECT_EQ(
      check(*loaded, "mad", triples, std::function<float(const V&)>([](const V& v) { return v[0] * v[1] + v[2]; })), 0);
  EXPECT_EQ(check(*loaded, "chain", triples,
                  std::function<float(const V&)>([](const V& v) { return (v[0] + v[1]) * v[2] - v[0] * v[2]; })),
            0);
  EXPECT_EQ(check(*loaded, "mad_load", triples,
                  std::function<float(const V&)>([](const V& v) { return v[0] * v[1] + (v[2] + 0.0f); })),
            0);
}

// Fast mode: Vulkan rounds + - * correctly, and a correctly rounding device
// agrees everywhere; on normal operands and results every device must.
TEST_F(FloatModesTest, FastModeAgreesOnNormalValues) { EXPECT_EQ(run_all(FloatMode::Fast, true), 0); }

// Exact mode relies on native f64 + - * keeping subnormals (float_exact.h);
// f32 subnormals are reported only: exact mode never relies on them.
TEST_F(FloatModesTest, DeviceProbeSubnormals) {
  spirv::CompileOptions options;
  options.float_mode = FloatMode::Fast;
  auto loaded = Module::load(*device, wat_to_wasm(ops_module()), options);
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  auto run = [&](const std::string& name, Value a, Value b) {
    std::vector<std::vector<Value>> args = {{a, b}};
    auto r = loaded->call(name, args);
    EXPECT_TRUE(r.ok());
    return r.ok() ? (*r)[0].values.at(0).bits : 0;
  };
  auto f32 = [](uint32_t bits) { return Value{wasm::ValType::F32, bits}; };
  auto f64 = [](uint64_t bits) { return Value{wasm::ValType::F64, bits}; };
  bool f32_keeps = run("f32.add", f32(1), f32(1)) == 2 && run("f32.sub", f32(3), f32(1)) == 2 &&
                   run("f32.mul", f32(2), f32(0x3F000000)) == 1 &&
                   run("f32.mul", f32(0x00800000), f32(0x3F000000)) == 0x00400000;
  bool f64_keeps = run("f64.add", f64(1), f64(1)) == 2 && run("f64.sub", f64(3), f64(1)) == 2 &&
                   run("f64.mul", f64(2), f64(0x3FE0000000000000)) == 1 &&
                   run("f64.mul", f64(0x0010000000000000), f64(0x3FE0000000000000)) == 0x0008000000000000;
  std::cout << "device " << (f32_keeps ? "keeps" : "flushes") << " f32 subnormals in + - *, "
            << (f64_keeps ? "keeps" : "flushes") << " f64 subnormals\n";
  RecordProperty("f32_subnormals", f32_keeps ? "kept" : "flushed");
  RecordProperty("f64_subnormals", f64_keeps ? "kept" : "flushed");
  EXPECT_TRUE(f64_keeps) << "exact mode's native f64 + - * need a device that keeps f64 subnormals";
}

// A device without the float controls the compiler asks for refuses the
// kernel and names the property, in each mode what that mode needs.
class DeviceWithoutFloatControls : public VulkanTest {
 protected:
  void SetUp() override {
    setenv("WASMGPU_HIDE_FEATURES", "float_controls", 1);
    VulkanTest::SetUp();
    unsetenv("WASMGPU_HIDE_FEATURES");
  }
  std::string refusal(FloatMode mode) {
    spirv::CompileOptions options;
    options.float_mode = mode;
    auto loaded = Module::load(*device, wat_to_wasm(R"((module
      (func (export "add") (param f32 f32) (result f32) (f32.add (local.get 0) (local.get 1)))))"),
                               options);
    if (!loaded.ok()) return loaded.error().message;
    std::vector<std::vector<Value>> args = {{Value{wasm::ValType::F32, 0}, Value{wasm::ValType::F32, 0}}};
    auto called = loaded->call("add", args);
    return called.ok() ? "" : called.error().message;
  }
};

TEST_F(DeviceWithoutFloatControls, KernelsAreRefusedNamingTheProperty) {
  std::string exact = refusal(FloatMode::Exact);
  EXPECT_NE(exact.find("exact float mode) needs shaderRoundingModeRTEFloat32, shaderSignedZeroInfNanPreserveFloat32, "
                       "shaderRoundingModeRTEFloat64, shaderSignedZeroInfNanPreserveFloat64"),
            std::string::npos)
      << exact;
  std::string fast = refusal(FloatMode::Fast);
  EXPECT_NE(fast.find("fast float mode) needs shaderRoundingModeRTEFloat32, which Vulkan device"), std::string::npos)
      << fast;
}

}  // namespace
}  // namespace wasmgpu::runtime
