// Choosing the cpu device: by name through the public API and `--device cpu`
// in the CLI, and by default where no Vulkan driver exists
// (VK_ICD_FILENAMES pointing nowhere), where it runs what lavapipe runs and
// gives the same bytes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "wasmgpu/wasmgpu.hpp"

namespace wasmgpu {
namespace {

namespace fs = std::filesystem;

// A Vulkan loader given this finds no driver at all.
constexpr const char* kNoVulkan = "VK_ICD_FILENAMES=/nonexistent VK_DRIVER_FILES=/nonexistent";

std::string example_kernel(const std::string& name) {
  return std::string(WASMGPU_TEST_DATA_DIR) + "/../examples/" + name + ".wasm";
}

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// The CLI with `environment` (VAR=value ...) before it, WASMGPU_DEVICE unset.
CommandResult run_cli(const std::string& environment, const std::string& arguments) {
  const std::string command =
      "env -u WASMGPU_DEVICE " + environment + " '" + WASMGPU_CLI_PATH + "' " + arguments + " 2>&1";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> chunk;
  size_t got;
  while ((got = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) result.output.append(chunk.data(), got);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

class CpuSelectionCli : public ::testing::Test {
 public:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wasmgpu_cpu_selection_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write_floats(const std::string& name, const std::vector<float>& values) {
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(float)));
  }
  std::string read_bytes(const std::string& name) {
    std::ifstream in(path(name), std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  fs::path dir_;
};

// saxpy through `wasmgpu run` under `environment` with `extra` options;
// returns the output file's bytes.
std::string run_saxpy(CpuSelectionCli& test, const std::string& environment, const std::string& extra,
                      const std::string& tag, CommandResult* result_out) {
  std::vector<float> x(1000), y(1000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = float(i) * 0.37f - 100.0f;
    y[i] = 1.0f / float(i + 1);
  }
  test.write_floats("x.bin", x);
  test.write_floats(tag + ".bin", y);
  CommandResult result =
      run_cli(environment, "run '" + example_kernel("saxpy") + "' saxpy --n 1000 2.5 in:" + test.path("x.bin") +
                               " inout:" + test.path(tag + ".bin") + " " + extra);
  *result_out = result;
  return test.read_bytes(tag + ".bin");
}

TEST_F(CpuSelectionCli, DeviceCpuRunsOnTheCpuDeviceWithLavapipesBytes) {
  CommandResult cpu, vulkan;
  const std::string on_cpu = run_saxpy(*this, "", "--device cpu", "cpu", &cpu);
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_NE(cpu.output.find(" on cpu in "), std::string::npos) << cpu.output;
  const std::string on_vulkan = run_saxpy(*this, "", "--device 0", "vulkan", &vulkan);
  ASSERT_EQ(vulkan.status, 0) << vulkan.output;
  EXPECT_EQ(vulkan.output.find(" on cpu in "), std::string::npos) << vulkan.output;
  ASSERT_EQ(on_cpu.size(), 4000u);
  EXPECT_EQ(on_cpu, on_vulkan);
  // Case-insensitive, as WASMGPU_DEVICE is.
  CommandResult upper;
  run_saxpy(*this, "", "--device CPU", "upper", &upper);
  EXPECT_EQ(upper.status, 0) << upper.output;
  EXPECT_NE(upper.output.find(" on cpu in "), std::string::npos) << upper.output;
}

// `wasmgpu call --device cpu` prints what it prints on lavapipe: the results
// line by line, traps as `trap: KIND`, the count of trapped calls and exit
// status 1; the module's globals start from their initial values.
TEST_F(CpuSelectionCli, CallOnTheCpuDevicePrintsWhatLavapipePrints) {
  const std::string functions = std::string(WASMGPU_API_KERNELS_DIR) + "/functions.wasm";
  std::ofstream(path("tuples.txt")) << "6 3\n1 0  # traps\n-7 2\n2147483647 -1\n";
  const std::string quotients = "call '" + functions + "' quotient --tuples '" + path("tuples.txt") + "'";
  CommandResult cpu = run_cli("", quotients + " --device cpu");
  CommandResult vulkan = run_cli("", quotients + " --device 0");
  EXPECT_EQ(cpu.status, 1) << cpu.output;
  EXPECT_EQ(cpu.output, "2\ntrap: integer divide by zero\n-3\n-2147483647\nwasmgpu: error: 1 of 4 calls trapped\n");
  EXPECT_EQ(cpu.output, vulkan.output);
  EXPECT_EQ(cpu.status, vulkan.status);
  CommandResult halve = run_cli("", "call '" + functions + "' halve --device cpu -- -inf");
  EXPECT_EQ(halve.status, 0) << halve.output;
  EXPECT_EQ(halve.output, "-inf\n");
  EXPECT_EQ(halve.output, run_cli("", "call '" + functions + "' halve --device 0 -- -inf").output);
  CommandResult accumulate = run_cli("", "call '" + functions + "' accumulate 5 --device cpu");
  EXPECT_EQ(accumulate.status, 0) << accumulate.output;
  EXPECT_EQ(accumulate.output, "5\n");
}

TEST_F(CpuSelectionCli, WithoutVulkanRunDefaultsToTheCpuDeviceAndSaysSoUnderVerbose) {
  CommandResult vulkan, fallback, quiet;
  const std::string on_vulkan = run_saxpy(*this, "", "", "vulkan", &vulkan);
  ASSERT_EQ(vulkan.status, 0) << vulkan.output;
  const std::string on_cpu = run_saxpy(*this, kNoVulkan, "-v", "fallback", &fallback);
  ASSERT_EQ(fallback.status, 0) << fallback.output;
  EXPECT_NE(fallback.output.find("running on the cpu device: "), std::string::npos) << fallback.output;
  EXPECT_NE(fallback.output.find(" on cpu in "), std::string::npos) << fallback.output;
  EXPECT_EQ(on_cpu, on_vulkan);
  run_saxpy(*this, kNoVulkan, "", "quiet", &quiet);
  ASSERT_EQ(quiet.status, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("running on the cpu device"), std::string::npos) << quiet.output;
  // A Vulkan device asked for by index is still an error, not the cpu device.
  CommandResult by_index;
  run_saxpy(*this, kNoVulkan, "--device 0", "index", &by_index);
  EXPECT_NE(by_index.status, 0) << by_index.output;
  EXPECT_NE(by_index.output.find("wasmgpu: error: "), std::string::npos) << by_index.output;
}

TEST_F(CpuSelectionCli, WithoutVulkanDevicesShowsTheCpuDeviceAsTheDefault) {
  CommandResult result = run_cli(kNoVulkan, "devices");
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_NE(result.output.find("no Vulkan device: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\ncpu * cpu "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("* default device\n"), std::string::npos) << result.output;
  // With Vulkan, the cpu device is listed but not the default.
  CommandResult with_vulkan = run_cli("", "devices");
  ASSERT_EQ(with_vulkan.status, 0) << with_vulkan.output;
  EXPECT_NE(with_vulkan.output.find("\ncpu   cpu "), std::string::npos) << with_vulkan.output;
  EXPECT_EQ(with_vulkan.output.find("no Vulkan device"), std::string::npos) << with_vulkan.output;
}

// Through the public API, in a child process that starts without a Vulkan
// driver (the process-wide Vulkan instance is created once, so the parent
// cannot lose its driver): the death test's child re-runs this binary.
void open_without_vulkan_and_exit() {
  setenv("VK_ICD_FILENAMES", "/nonexistent", 1);
  setenv("VK_DRIVER_FILES", "/nonexistent", 1);
  unsetenv("WASMGPU_DEVICE");
  auto check = [](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "failed: %s\n", what);
      std::exit(1);
    }
  };
  try {
    (void)devices();
    check(false, "devices() threw no Unsupported without a driver");
  } catch (const Exception& e) {
    check(e.kind() == ErrorKind::Unsupported, "devices() threw Unsupported");
  }
  const DefaultDevice choice = default_device();
  check(choice.cpu && !choice.index, "default_device() names the cpu device");
  check(!choice.reason.empty(), "default_device() says why no Vulkan device");
  check(validation_messages().empty() && !validation_enabled(), "no validation without Vulkan");
  Device device = Device::open();
  check(device.info().name == "cpu", "Device::open() opened the cpu device");
  Module module = device.load_file(example_kernel("saxpy"));
  Buffer<float> x = device.upload(std::vector<float>{1, 2, 3}), y = device.upload(std::vector<float>{10, 20, 30});
  module.kernel("saxpy")(3, 2.0f, x, y);
  check(y.read() == std::vector<float>({12, 24, 36}), "saxpy ran on it");
  DeviceOptions by_index;
  by_index.index = 0;
  try {
    (void)Device::open(by_index);
    check(false, "a Vulkan index opened something");
  } catch (const Exception& e) {
    check(e.kind() == ErrorKind::Unsupported, "a Vulkan index is Unsupported without a driver");
  }
  std::fprintf(stderr, "cpu device opened by default\n");
  std::exit(0);
}

TEST(CpuSelectionApi, WithoutVulkanDeviceOpenOpensTheCpuDevice) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(open_without_vulkan_and_exit(), ::testing::ExitedWithCode(0), "cpu device opened by default");
}

TEST(CpuSelectionApi, WithVulkanTheDefaultStaysVulkan) {
  DeviceOptions options;
  options.use_environment = false;
  Device device = Device::open(options);
  EXPECT_NE(device.info().name, "cpu");
  DeviceOptions cpu;
  cpu.name = "cpu";
  EXPECT_EQ(Device::open(cpu).info().name, "cpu");
}

}  // namespace
}  // namespace wasmgpu
