// wasmgpu devices: the Vulkan devices, the cpu device, their limits, and which one is the default.
#include <fmt/core.h>

#include "cli/cli_support.h"
#include "cli/commands.h"
#include "support/environment.h"
#include "wasmgpu/device.hpp"

namespace wasmgpu::cli {
namespace {

std::string memory_text(uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", double(bytes) / double(1ull << 30));
  return fmt::format("{} MiB", bytes >> 20);
}

void run_devices(bool verbose) {
  std::vector<DeviceInfo> devices;
  std::string no_vulkan;  // why there is no Vulkan device to list
  try {
    devices = wasmgpu::devices();
  } catch (const Exception& e) {
    no_vulkan = e.what();
  }
  const std::optional<DeviceInfo> cpu = cpu_device();
  if (devices.empty() && no_vulkan.empty())
    no_vulkan = "no Vulkan device found (is a Vulkan driver such as mesa-vulkan-drivers installed?)";
  if (devices.empty() && !cpu) fail(no_vulkan);
  DefaultDevice choice;
  try {
    choice = default_device();
  } catch (const Exception& e) {
    choice.reason = e.what();
  }
  const std::optional<uint32_t> chosen = choice.index;
  const std::optional<std::string> env = environment::device();

  if (!no_vulkan.empty()) fmt::print("no Vulkan device: {}\n", no_vulkan);
  fmt::print("{:<3} {:<2}{:<36} {:<14} {:<28} {:>10} {:>9} {:>12} {:>9} {:>6}\n", "#", "", "name", "type", "driver",
             "memory", "wg size", "wg count x", "shared", "subgr");
  for (const DeviceInfo& d : devices) {
    std::string driver = d.driver;
    if (driver.size() > 28) driver = driver.substr(0, 27) + "~";
    std::string name = d.name.size() > 36 ? d.name.substr(0, 35) + "~" : d.name;
    fmt::print("{:<3} {:<2}{:<36} {:<14} {:<28} {:>10} {:>9} {:>12} {:>9} {:>6}\n", d.index,
               chosen == d.index ? "*" : "", name, d.type, driver, memory_text(d.device_local_memory_bytes),
               d.max_workgroup_invocations, d.max_workgroup_count_x,
               fmt::format("{} KiB", d.max_shared_memory_bytes / 1024), d.subgroup_size);
    if (!d.usable()) fmt::print("      cannot run wasm kernels: {}\n", d.unusable_reason);
    if (verbose) {
      fmt::print(
          "      Vulkan {}, max storage buffer range {}, max allocation {}, f64 {}, int64 {}, "
          "descriptor indexing {}\n",
          d.api_version, memory_text(d.max_storage_buffer_range), memory_text(d.max_allocation_bytes),
          d.float64 ? "yes" : "no", d.int64 ? "yes" : "no", d.descriptor_indexing ? "yes" : "no");
    }
  }
  if (cpu) fmt::print("{:<3} {:<2}{:<36} {:<14} {}\n", "cpu", choice.cpu ? "*" : "", cpu->name, cpu->type, cpu->driver);
  if (chosen || choice.cpu)
    fmt::print("* default device{}\n", env ? fmt::format(" (WASMGPU_DEVICE={})", *env) : "");
  else
    fmt::print("no default device: {}\n", choice.reason);
}

}  // namespace

void add_devices_command(CLI::App& app) {
  auto verbose = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("devices", "List the Vulkan devices, the cpu device, and their key limits");
  cmd->footer(
      "Columns: index, name, type, driver, device-local memory, max invocations per workgroup,\n"
      "max workgroups in x, shared memory per workgroup, subgroup size. `*` marks the device\n"
      "commands use by default: WASMGPU_DEVICE (an index or part of a name) when set, else\n"
      "a discrete GPU first, then integrated, virtual, and CPU devices such as lavapipe;\n"
      "the native cpu device (`cpu`, WASMGPU_DEVICE=cpu or --device cpu) where no Vulkan\n"
      "device can run kernels.");
  cmd->add_flag("-v,--verbose", *verbose, "Also show Vulkan version, buffer limits and features");
  cmd->callback([verbose] { run_devices(*verbose); });
}

}  // namespace wasmgpu::cli
