// The wasmgpu command-line tool, run as a user would: outputs, files and
// one-line errors with a non-zero exit status.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/environment.h"

namespace wasmgpu::e2e {
namespace {

namespace fs = std::filesystem;

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// The tool under test: $WASMGPU_CLI, or the one in the build tree.
std::string cli_path() { return environment::get_nonempty("WASMGPU_CLI").value_or(WASMGPU_CLI_PATH); }

// `environment`: "NAME=value " assignments the command starts with.
CommandResult run_cli_with(const std::string& environment, const std::string& arguments) {
  std::string command = environment + "'" + cli_path() + "' " + arguments + " 2>&1";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> chunk;
  size_t got;
  while ((got = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) result.output.append(chunk.data(), got);
  int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult run_cli(const std::string& arguments) { return run_cli_with("", arguments); }

std::string kernel_path(const std::string& name) {
  return environment::get_nonempty("WASMGPU_TEST_KERNELS_DIR").value_or(WASMGPU_TEST_KERNELS_DIR) + "/" + name;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wasmgpu_cli_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  template <class T>
  void write(const std::string& name, const std::vector<T>& values) {
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(T)));
  }
  template <class T>
  std::vector<T> read(const std::string& name) {
    std::ifstream in(path(name), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
  }
  fs::path dir_;
};

// One line on standard error, nothing else.
void expect_one_line_error(const CommandResult& result, const std::string& needle) {
  EXPECT_NE(result.status, 0) << result.output;
  EXPECT_EQ(result.output.find("wasmgpu: error: "), 0u) << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
  EXPECT_NE(result.output.find(needle), std::string::npos) << result.output;
}

TEST_F(Cli, HelpForEveryCommand) {
  for (const char* command : {"", "devices", "compile", "inspect", "run"}) {
    CommandResult result = run_cli(std::string(command) + " --help");
    EXPECT_EQ(result.status, 0) << command << ": " << result.output;
    EXPECT_NE(result.output.find("Usage"), std::string::npos) << result.output;
  }
}

TEST_F(Cli, DevicesListsTheDefaultDevice) {
  CommandResult result = run_cli("devices");
  EXPECT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("* default device"), std::string::npos) << result.output;
}

TEST_F(Cli, InspectTellsKernelsFromOtherExports) {
  CommandResult result = run_cli("inspect '" + kernel_path("traps.O2.wasm") + "'");
  EXPECT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("func divide (i32, i32, i32, i32) -> ()"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("kernel: runnable"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("memory memory"), std::string::npos) << result.output;
  // divide reads no workgroup or subgroup id: launches without a size may be autotuned.
  EXPECT_NE(result.output.find("launch shape without a size: autotuned (results cannot depend on it): uses no local, "
                               "workgroup or subgroup id, barrier or shared memory"),
            std::string::npos)
      << result.output;
}

// A start function that cannot run: inspect says so, and that the kernel it
// compiles never runs, since loading the module fails.
TEST_F(Cli, InspectSaysAKernelCannotRunWhenTheStartFunctionCannot) {
  // (module (import "env" "init" (func)) (func (export "k") (param i32)) (start 0))
  const std::vector<uint8_t> bytes = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x60, 0x00,
                                      0x00, 0x60, 0x01, 0x7f, 0x00, 0x02, 0x0c, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x04,
                                      0x69, 0x6e, 0x69, 0x74, 0x00, 0x00, 0x03, 0x02, 0x01, 0x01, 0x07, 0x05, 0x01,
                                      0x01, 0x6b, 0x00, 0x01, 0x08, 0x01, 0x00, 0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b};
  write<uint8_t>("start.wasm", bytes);
  CommandResult result = run_cli("inspect '" + path("start.wasm") + "'");
  EXPECT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("cannot run: it is the imported function env.init; loading the module fails"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("kernel: compiled, but loading the module fails at its start function"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("kernel: runnable"), std::string::npos) << result.output;
}

TEST_F(Cli, CompileWritesValidSpirv) {
  CommandResult result = run_cli("compile '" + kernel_path("traps.O2.wasm") + "' --kernel divide -o " + path("k.spv"));
  ASSERT_EQ(result.status, 0) << result.output;
  std::vector<uint32_t> words = read<uint32_t>("k.spv");
  ASSERT_GT(words.size(), 5u);
  EXPECT_EQ(words[0], 0x07230203u);  // the SPIR-V magic number
  result = run_cli("compile '" + kernel_path("traps.O2.wasm") + "' --kernel divide --emit spvasm -o -");
  EXPECT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("OpEntryPoint GLCompute"), std::string::npos);
}

// --no-validate skips spirv-val, not anything the output depends on.
TEST_F(Cli, CompileWithoutValidationWritesTheSameWords) {
  const std::string input = "compile '" + kernel_path("traps.O2.wasm") + "' --kernel divide -o ";
  ASSERT_EQ(run_cli(input + path("validated.spv")).status, 0);
  CommandResult result = run_cli(input + path("unvalidated.spv") + " --no-validate");
  ASSERT_EQ(result.status, 0) << result.output;
  std::vector<uint32_t> validated = read<uint32_t>("validated.spv");
  EXPECT_GT(validated.size(), 5u);
  EXPECT_EQ(read<uint32_t>("unvalidated.spv"), validated);
}

TEST_F(Cli, CompileRefusesAmbiguousKernelChoice) {
  expect_one_line_error(run_cli("compile '" + kernel_path("traps.O2.wasm") + "' -o " + path("k.spv")),
                        "several kernels");
}

TEST_F(Cli, RunReadsAndWritesBufferFiles) {
  write<int32_t>("num.bin", {10, 20, -30, 40});
  write<int32_t>("den.bin", {2, 5, 3, -8});
  CommandResult result = run_cli("run '" + kernel_path("traps.O2.wasm") + "' divide --n 4 in:" + path("num.bin") +
                                 " in:" + path("den.bin") + " out:" + path("q.bin") + ":16");
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_EQ(read<int32_t>("q.bin"), (std::vector<int32_t>{5, 4, -10, -5}));
}

// --repeat times launches after the first (the compile) with GPU timestamps;
// the output file holds the first launch's results either way.
TEST_F(Cli, RunRepeatsAndReportsDeviceTimeAndBandwidth) {
  write<int32_t>("num.bin", {10, 20, -30, 40});
  write<int32_t>("den.bin", {2, 5, 3, -8});
  const std::string run = "run '" + kernel_path("traps.O2.wasm") + "' divide --n 4 in:" + path("num.bin") +
                          " in:" + path("den.bin") + " out:" + path("q.bin") + ":16";
  CommandResult result = run_cli(run + " --repeat 5 --bytes 48");
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_EQ(read<int32_t>("q.bin"), (std::vector<int32_t>{5, 4, -10, -5}));
  EXPECT_NE(result.output.find("(the first launch: compiling it, then running it once)"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("repeat: 5 launches, device time (GPU timestamps) per launch: median "),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("GB/s at the median"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("compile: "), std::string::npos) << result.output;
  double median = 0, best = 0;
  const size_t at = result.output.find("median ");
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(std::sscanf(result.output.c_str() + at, "median %lf ms, min %lf ms", &median, &best), 2) << result.output;
  EXPECT_GT(best, 0.0);
  EXPECT_LE(best, median);
  expect_one_line_error(run_cli(run + " --bytes 48"), "--bytes gives a bandwidth for the --repeat launches");
}

// A first launch says what it waits for: after 2 s on a terminal, from the
// start with WASMGPU_PROGRESS=always (standard error is a pipe here, where it
// is quiet unless asked).
TEST_F(Cli, RunSaysWhatAFirstLaunchWaitsFor) {
  write<int32_t>("num.bin", {10, 20});
  write<int32_t>("den.bin", {2, 5});
  const std::string run = "run '" + kernel_path("traps.O2.wasm") + "' divide --n 2 in:" + path("num.bin") +
                          " in:" + path("den.bin") + " zeros:8";
  CommandResult result = run_cli(run);
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_EQ(result.output.find("waiting for"), std::string::npos) << result.output;
  result = run_cli_with("WASMGPU_PROGRESS=always ", run);
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("wasmgpu: waiting for divide on "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("(a first launch compiles its pipeline, then runs it"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("wasmgpu: divide on "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find(" done after "), std::string::npos) << result.output;
  EXPECT_EQ(run_cli_with("WASMGPU_PROGRESS=0 ", run).output.find("waiting for"), std::string::npos);
}

TEST_F(Cli, RunReportsTraps) {
  write<int32_t>("num.bin", {1, 2, 3});
  write<int32_t>("den.bin", {1, 0, 0});
  CommandResult result = run_cli("run '" + kernel_path("traps.O2.wasm") + "' divide --n 3 in:" + path("num.bin") +
                                 " in:" + path("den.bin") + " zeros:12");
  expect_one_line_error(result, "integer divide by zero at invocation 1 (2 invocations trapped)");
}

TEST_F(Cli, RunLaunchesA2DGrid) {
  const uint32_t width = 10, height = 7;
  CommandResult result = run_cli("run '" + kernel_path("grid.O2.wasm") + "' coords --grid 3,2 --workgroup-size 4,4 " +
                                 std::to_string(width) + " " + std::to_string(height) + " out:" + path("c.bin") + ":" +
                                 std::to_string(4 * width * height));
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("a grid of 3x2x1 workgroups"), std::string::npos) << result.output;
  std::vector<uint32_t> expected;
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) expected.push_back((y << 16) | x);
  EXPECT_EQ(read<uint32_t>("c.bin"), expected);
}

TEST_F(Cli, RunGridErrorsAreOneLine) {
  const std::string run = "run '" + kernel_path("grid.O2.wasm") + "' coords ";
  expect_one_line_error(run_cli(run + "--grid 0,2 1 1 zeros:4"),
                        "--grid: expected X[,Y[,Z]] with each between 1 and 4294967295, got '0,2'");
  expect_one_line_error(run_cli(run + "--grid 2,x 1 1 zeros:4"), "--grid: expected X[,Y[,Z]]");
  expect_one_line_error(run_cli(run + "--grid 1,1,1,1 1 1 zeros:4"), "--grid: expected X[,Y[,Z]]");
  expect_one_line_error(run_cli(run + "--n 4 --grid 2 1 1 zeros:4"), "--n and --grid are exclusive");
  expect_one_line_error(run_cli(run + "1 1 zeros:4"), "give --n N (invocations) or --grid X[,Y[,Z]]");
  expect_one_line_error(run_cli(run + "--n 4 --workgroup-size 4,4 1 1 zeros:4"), "needs --grid");
  // Beyond every device's limits (maxComputeWorkGroupInvocations is at most a few thousand).
  expect_one_line_error(run_cli(run + "--grid 1 --workgroup-size 1024,1024 1 1 zeros:4"), "workgroup");
}

TEST_F(Cli, RunErrorsAreOneLine) {
  const std::string wasm = "'" + kernel_path("traps.O2.wasm") + "'";
  expect_one_line_error(run_cli("run " + wasm + " nosuch --n 1"), "no exported function 'nosuch'");
  expect_one_line_error(run_cli("run " + wasm + " divide --n 1 zeros:4"), "takes 3 arguments");
  expect_one_line_error(run_cli("run " + wasm + " divide --n 1 in:" + path("missing.bin") + " zeros:4 zeros:4"),
                        "cannot open");
  expect_one_line_error(run_cli("run " + wasm + " divide --n 1 zeros:4 zeros:4 1.5"), "expected a 32-bit integer");
  expect_one_line_error(run_cli("run " + path("missing.wasm") + " divide --n 1"), "missing.wasm");
}

// Four processes run the same kernel at once with one fresh cache directory:
// each gets correct results, no process sees a damaged entry, nothing is
// left half-written, and a fifth run compiles nothing.
TEST_F(Cli, ParallelProcessesShareTheCache) {
  const std::string cache = path("cache");
  write<int32_t>("num.bin", {10, 20, -30, 40});
  write<int32_t>("den.bin", {2, 5, 3, -8});
  auto run_line = [&](const std::string& out, const std::string& log) {
    return "WASMGPU_CACHE_DIR='" + cache + "' '" + cli_path() + "' run '" + kernel_path("traps.O2.wasm") +
           "' divide --n 4 --verbose in:" + path("num.bin") + " in:" + path("den.bin") + " out:" + path(out) +
           ":16 > '" + path(log) + "' 2>&1";
  };
  // sh: start all four, then wait for each and fail when any failed.
  std::string parallel;
  for (int i = 0; i < 4; ++i)
    parallel +=
        run_line("q" + std::to_string(i) + ".bin", "log" + std::to_string(i)) + " & p" + std::to_string(i) + "=$!; ";
  parallel += "wait $p0 && wait $p1 && wait $p2 && wait $p3";
  ASSERT_EQ(std::system(parallel.c_str()), 0);
  for (int i = 0; i < 4; ++i) {
    std::ifstream in(path("log" + std::to_string(i)));
    const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(log.find("cache " + cache + ": "), std::string::npos) << log;
    EXPECT_EQ(log.find("damaged"), std::string::npos) << log;
    EXPECT_EQ(log.find("failed"), std::string::npos) << log;
    EXPECT_EQ(read<int32_t>("q" + std::to_string(i) + ".bin"), (std::vector<int32_t>{5, 4, -10, -5})) << i;
  }
  size_t entries = 0;
  for (const auto& file : fs::directory_iterator(fs::path(cache) / "spirv")) {
    EXPECT_NE(file.path().filename().string().rfind(".tmp-", 0), 0u) << file.path();
    ++entries;
  }
  EXPECT_EQ(entries, 1u);  // one kernel

  const std::string warm_line = "WASMGPU_CACHE_DIR='" + cache + "' '" + cli_path() + "' run '" +
                                kernel_path("traps.O2.wasm") + "' divide --n 4 -v in:" + path("num.bin") +
                                " in:" + path("den.bin") + " out:" + path("q.bin") + ":16 > '" + path("warm.log") +
                                "' 2>&1";
  ASSERT_EQ(std::system(warm_line.c_str()), 0);
  std::ifstream in(path("warm.log"));
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(log.find(": 0 compiled to SPIR-V ("), std::string::npos) << log;
  EXPECT_NE(log.find(", 1 from cache ("), std::string::npos) << log;
  EXPECT_EQ(read<int32_t>("q.bin"), (std::vector<int32_t>{5, 4, -10, -5}));
}

TEST_F(Cli, NoCacheCompilesAndWritesNothing) {
  const std::string cache = path("cache");
  write<int32_t>("num.bin", {7});
  write<int32_t>("den.bin", {2});
  const std::string line = "WASMGPU_CACHE_DIR='" + cache + "' '" + cli_path() + "' run '" +
                           kernel_path("traps.O2.wasm") + "' divide --n 1 --no-cache -v in:" + path("num.bin") +
                           " in:" + path("den.bin") + " out:" + path("q.bin") + ":4 > '" + path("log") + "' 2>&1";
  ASSERT_EQ(std::system(line.c_str()), 0);
  std::ifstream in(path("log"));
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(log.find("cache off (turned off by CacheOptions::enabled): 1 compiled to SPIR-V ("), std::string::npos)
      << log;
  EXPECT_NE(log.find(", 0 from cache ("), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(cache));
  EXPECT_EQ(read<int32_t>("q.bin"), (std::vector<int32_t>{3}));
}

}  // namespace
}  // namespace wasmgpu::e2e
