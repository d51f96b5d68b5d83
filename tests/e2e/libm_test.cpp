// wasi-libc's libm, memset and memcpy linked into a kernel: the device's
// results equal, bit for bit, those of the same module run on the CPU by wabt's
// reference interpreter (tests/kernels/libm.c).
#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "e2e_support.h"

namespace wasmgpu::e2e {
namespace {

constexpr uint32_t kInputs = 1024, kWords = 12;  // LIBM_INPUTS, LIBM_WORDS in libm.c

// Runs every no-argument export of `wasm` in wasm-interp; returns the
// libm_digest_<w> results, indexed by w (empty on failure, with `error` set).
std::vector<uint64_t> interpreter_digests(const std::string& wasm, std::string& error) {
  std::string command = std::string("'") + WASMGPU_WASM_INTERP + "' --run-all-exports '" + wasm + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    error = "cannot run " + command;
    return {};
  }
  std::string output;
  std::array<char, 4096> chunk;
  size_t got;
  while ((got = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) output.append(chunk.data(), got);
  int status = pclose(pipe);
  std::vector<uint64_t> digests(kWords);
  std::vector<bool> seen(kWords);
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    unsigned word;
    unsigned long long value;
    if (std::sscanf(line.c_str(), "libm_digest_%u() => i64:%llu", &word, &value) == 2 && word < kWords) {
      digests[word] = value;
      seen[word] = true;
    }
  }
  for (bool s : seen)
    if (!s || status != 0) {
      error = "wasm-interp failed or missed a digest:\n" + output;
      return {};
    }
  return digests;
}

uint64_t fold(const std::vector<uint32_t>& results, unsigned word) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t k = 0; k < kInputs; ++k) h = (h ^ results[k * kWords + word]) * 0x100000001b3ull;
  return h;
}

class Libm : public EndToEnd {};

TEST_P(Libm, MatchesWasmInterpreter) {
  if (std::string(WASMGPU_WASM_INTERP).empty()) GTEST_SKIP() << "wasm-interp (wabt) not found";
  std::string error;
  std::vector<uint64_t> reference =
      interpreter_digests(kernels_dir() + "/libm." + std::string(GetParam()) + ".wasm", error);
  ASSERT_FALSE(reference.empty()) << error;

  // The kernel, one invocation per input.
  runtime::Buffer out = buffer(4ull * kInputs * kWords);
  ASSERT_TRUE(out.fill(0xDEADBEEF).ok());
  Status launched = kernel("libm", "libm").launch(kInputs, 64, {out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<uint32_t> results = read<uint32_t>(out, size_t(kInputs) * kWords);
  for (uint32_t k = 0; k < kInputs; ++k) ASSERT_EQ(results[k * kWords + 11], 0xA5A5A5A5u) << "memset, input " << k;
  for (unsigned w = 0; w < kWords; ++w) EXPECT_EQ(fold(results, w), reference[w]) << "result word " << w;

  // The digest functions themselves, called on the device.
  std::vector<runtime::CallRequest> calls;
  for (unsigned w = 0; w < kWords; ++w) calls.push_back({"libm_digest_" + std::to_string(w), {}});
  auto called = load("libm").call(calls);
  ASSERT_TRUE(called.ok()) << called.error().message;
  ASSERT_EQ(called.value().size(), kWords);
  for (unsigned w = 0; w < kWords; ++w) {
    const runtime::CallResult& r = called.value()[w];
    ASSERT_FALSE(r.trapped) << "libm_digest_" << w;
    ASSERT_EQ(r.values.size(), 1u);
    EXPECT_EQ(r.values[0].bits, reference[w]) << "libm_digest_" << w;
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, Libm, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace wasmgpu::e2e
