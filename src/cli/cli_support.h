// Helpers shared by the subcommands: file I/O and one-line errors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <chrono>
#include <optional>

#include <CLI/CLI.hpp>

#include "spirv/compiler.h"
#include "support/result.h"
#include "wasm/module.h"
#include "wasmgpu/device.hpp"
#include "wasmgpu/module.hpp"

namespace wasmgpu::cli {

// Exit status for a failure the user can fix (bad input, bad arguments).
inline constexpr int kExitFailure = 1;

// Thrown by a subcommand to end the program with "wasmgpu: error: <message>".
struct CommandError {
  std::string message;
};

[[noreturn]] void fail(std::string message);

Result<std::vector<uint8_t>> read_file(const std::string& path);
Status write_file(const std::string& path, const void* data, size_t size);

// Reads, decodes and validates a wasm module, or fails with a one-line error.
wasm::Module load_module_or_fail(const std::string& path);

// A wasm module loaded on a device (through the public API).
struct LoadedModule {
  Device device;
  Module module;
};

// Opens the device (`device`: an index, part of a name, or "cpu"; default:
// the WASMGPU_DEVICE / discrete-first choice, else the cpu device) and loads
// `path` on it, or fails with a one-line error. `cache`: DeviceOptions::cache.
// `verbose`: says on stderr when the cpu device stands in for a missing
// Vulkan device.
// Kernel output settings (--print-buffer, --print-invocation); unset: the
// environment's (ModuleOptions::print_buffer_bytes, print_invocation).
struct PrintCliOptions {
  std::optional<std::string> buffer;  // "4096", "64k", "1M"
  bool invocation = false;
};
void add_print_options(CLI::App* cmd, PrintCliOptions* options);

// `heap`: --heap's text (cli/heap_option.h); unset: ModuleOptions::heap_bytes unset.
LoadedModule load_on_device_or_fail(const std::string& path, const std::optional<std::string>& device,
                                    const spirv::CompileOptions& options, bool cache = true, bool verbose = false,
                                    const PrintCliOptions& print = {}, const std::optional<std::string>& heap = {});

// Opens the device as load_on_device_or_fail does, or fails with a one-line error.
Device open_device_or_fail(const DeviceOptions& options, bool verbose);

// The --device option's help text (the same for every command that has it).
inline constexpr const char* kDeviceOptionHelp =
    "Device index, part of its name, or cpu (the native cpu device) (default: WASMGPU_DEVICE, else a discrete "
    "GPU first, else cpu where no Vulkan device can run kernels)";

// The public API's options for the compiler options the CLI's flags set.
ModuleOptions module_options(const spirv::CompileOptions& options);

// `seconds` as a wait's timeout.
std::chrono::nanoseconds timeout_of(double seconds);

// Fails with "the Vulkan validation layer reported N message(s)" when it
// reported any (WASMGPU_VALIDATION=1).
void fail_on_validation_messages();

// "(i32, f32) -> (i64)"
std::string signature_text(const wasm::FuncType& type);

}  // namespace wasmgpu::cli
