// wasi-libc's libm on the device in exact float mode, bit for bit against a
// CPU wasm engine running the same module (tests/kernels/libm.c): wabt's
// spectest-interp calls each function's scalar export on the inputs and
// asserts the device's result bits (any quiet NaN where the result is a NaN,
// as wasm leaves NaN payloads open). The reference is the wasm engine, not the
// host's libm: glibc's results differ from musl's in the last bit, while
// wasm semantics fix every bit of the same code.
//
// Double sin and cos are left out: their argument reduction (__rem_pio2 and
// __rem_pio2_large) makes a shader that lavapipe's LLVM takes minutes to
// compile (docs/kernel-guide.md, "memset, memcpy and libm").
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <unistd.h>

#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

constexpr uint32_t kInputs = 64;

struct Function {
  const char* name;
  bool is_double;
  bool binary;
  double lo, hi;  // the range of most inputs (the rest are edge cases and random bits)
};

const Function kFunctions[] = {
    {"expf", false, false, -90, 90},   {"logf", false, false, 0, 1e4},   {"sinf", false, false, -1e5, 1e5},
    {"cosf", false, false, -1e5, 1e5}, {"tanhf", false, false, -12, 12}, {"powf", false, true, -4, 40},
    {"fmodf", false, true, -1e3, 1e3}, {"exp", true, false, -710, 710},  {"log", true, false, 0, 1e6},
    {"pow", true, true, -4, 40},       {"fmod", true, true, -1e6, 1e6},
};

// Inputs as raw bits: edge cases, then values in [lo, hi], then random bits.
std::vector<uint64_t> inputs(const Function& f, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> in_range(f.lo, f.hi);
  auto bits = [&](double v) { return f.is_double ? std::bit_cast<uint64_t>(v) : std::bit_cast<uint32_t>(float(v)); };
  std::vector<uint64_t> out;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (double v : {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-40, -1e-310, 1e30, -1e30, 1e300, kInf, -kInf,
                   std::numeric_limits<double>::quiet_NaN()})
    out.push_back(bits(v));
  while (out.size() < kInputs * 3 / 4) out.push_back(bits(in_range(random)));
  while (out.size() < kInputs) out.push_back(f.is_double ? random() : uint32_t(random()));
  return out;
}

std::string json_value(bool is_double, const std::string& value) {
  return std::string("{\"type\": \"") + (is_double ? "f64" : "f32") + "\", \"value\": \"" + value + "\"}";
}

std::string json_value(bool is_double, uint64_t bits) { return json_value(is_double, std::to_string(bits)); }

bool is_nan(bool is_double, uint64_t bits) {
  return is_double ? std::isnan(std::bit_cast<double>(bits)) : std::isnan(std::bit_cast<float>(uint32_t(bits)));
}

// wasm lets a NaN result carry any quiet NaN payload when an operand is a
// NaN (which operand's payload propagates is not fixed), so a NaN result is
// asserted as the spec tests do: any quiet ("arithmetic") NaN.
bool is_quiet_nan(bool is_double, uint64_t bits) {
  return is_nan(is_double, bits) && (is_double ? (bits >> 51) & 1 : (bits >> 22) & 1);
}

// Runs spectest-interp on `commands` (assert_return of the module at
// `wasm`); returns its output and sets `passed` when every assertion held.
std::string run_interpreter(const std::string& wasm, const std::string& commands, bool& passed) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("wasmgpu-libm-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(wasm, dir / "libm.wasm", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "libm.json") << "{\"source_filename\": \"libm.wast\", \"commands\": [{\"type\": \"module\", "
                                      "\"line\": 1, \"filename\": \"libm.wasm\"}"
                                   << commands << "]}";
  std::string command = std::string("'") + WASMGPU_SPECTEST_INTERP + "' '" + (dir / "libm.json").string() + "' 2>&1";
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, pipe)) > 0) output.append(chunk, got);
    passed = pclose(pipe) == 0;
  }
  fs::remove_all(dir);
  return output;
}

class Libm : public EndToEnd {};

TEST_P(Libm, DeviceResultsEqualTheWasmInterpreterBitForBit) {
  if (std::string(WASMGPU_SPECTEST_INTERP).empty()) GTEST_SKIP() << "spectest-interp (wabt) not found";
  std::string commands;
  size_t assertions = 0;
  uint32_t seed = 1;
  for (const Function& f : kFunctions) {
    SCOPED_TRACE(f.name);
    const size_t width = f.is_double ? 8 : 4;
    std::vector<uint64_t> x = inputs(f, seed++), x2 = inputs(f, seed++);
    auto to_buffer = [&](const std::vector<uint64_t>& values) {
      std::vector<uint8_t> bytes(values.size() * width);
      for (size_t i = 0; i < values.size(); ++i) std::memcpy(&bytes[i * width], &values[i], width);
      return buffer_with(bytes);
    };
    runtime::Buffer in = to_buffer(x), in2 = to_buffer(x2);
    runtime::Buffer out = buffer(kInputs * width);
    Status launched = f.binary ? kernel("libm", std::string("kernel_") + f.name).launch(kInputs, 64, {in, in2, out})
                               : kernel("libm", std::string("kernel_") + f.name).launch(kInputs, 64, {in, out});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    std::vector<uint8_t> result = read<uint8_t>(out, kInputs * width);
    for (uint32_t i = 0; i < kInputs; ++i) {
      uint64_t got = 0;
      std::memcpy(&got, &result[i * width], width);
      if (is_nan(f.is_double, got)) {
        EXPECT_TRUE(is_quiet_nan(f.is_double, got)) << "input " << i << ": " << got;
      }
      std::string expected = is_nan(f.is_double, got) ? json_value(f.is_double, std::string("nan:arithmetic"))
                                                      : json_value(f.is_double, got);
      commands += ",\n{\"type\": \"assert_return\", \"line\": " + std::to_string(++assertions + 1) +
                  ", \"action\": {\"type\": \"invoke\", \"field\": \"call_" + f.name + "\", \"args\": [" +
                  json_value(f.is_double, x[i]) + (f.binary ? ", " + json_value(f.is_double, x2[i]) : "") +
                  "]}, \"expected\": [" + expected + "]}";
    }
  }
  bool passed = false;
  std::string output = run_interpreter(kernels_dir() + "/libm." + std::string(GetParam()) + ".wasm", commands, passed);
  EXPECT_TRUE(passed) << output;
  // spectest-interp counts the module command as one more test.
  const std::string all = std::to_string(assertions + 1);
  EXPECT_NE(output.find(all + "/" + all + " tests passed"), std::string::npos) << output;
}

// libm's code is the same at every level (it comes from libc.a); -O2 only.
INSTANTIATE_TEST_SUITE_P(OptLevels, Libm, ::testing::Values("O2"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
