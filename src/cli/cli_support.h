// Helpers shared by the subcommands: file I/O and one-line errors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <chrono>
#include <optional>

#include "runtime/device.h"
#include "runtime/instance.h"
#include "runtime/module.h"
#include "spirv/compiler.h"
#include "support/result.h"
#include "wasm/module.h"

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

// A wasm module loaded on a device, with the Instance and Device it needs
// (members are destroyed in reverse order: module, device, instance).
struct LoadedModule {
  runtime::Instance instance;
  runtime::Device device;
  runtime::Module module;
};

// Opens the device (`device`: an index or part of a name; default: the
// WASMGPU_DEVICE / discrete-first choice) and loads `path` on it, or fails
// with a one-line error.
LoadedModule load_on_device_or_fail(const std::string& path, const std::optional<std::string>& device,
                                    const spirv::CompileOptions& options,
                                    const runtime::CacheOptions& cache = {});

// Launch options waiting `seconds` for the device.
runtime::LaunchOptions launch_options_with_timeout(double seconds);

// "(i32, f32) -> (i64)"
std::string signature_text(const wasm::FuncType& type);

}  // namespace wasmgpu::cli
