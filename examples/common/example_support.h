// What every example host program does: pick a device, load its kernel
// module, time a launch, check the result against the same C code run natively.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/instance.h"
#include "runtime/module.h"

namespace wasmgpu::examples {

// Prints "error: <message>" and exits with status 1.
[[noreturn]] inline void die(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

template <class T>
T check(Result<T> result) {
  if (!result) die(result.error().to_string());
  return std::move(result).value();
}

inline void check(Status status) {
  if (!status) die(status.error().to_string());
}

// An Instance, a Device (WASMGPU_DEVICE or --device, else the default) and
// a loaded Module, destroyed in the right order. open_example prints the
// device's line ("device: NAME (TYPE, DRIVER)") that every example shows.
struct ExampleContext {
  runtime::Instance instance;
  runtime::Device device;
  runtime::Module module;
};

ExampleContext open_example(const std::string& wasm_path, const std::optional<std::string>& device);

// Milliseconds taken by `fn`.
template <class F>
double time_ms(F&& fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The options every example has: --device (an index or part of a name; by
// default WASMGPU_DEVICE, else a discrete GPU first) and --wasm (the module).
void add_example_options(CLI::App& app, std::optional<std::string>& device, std::string& wasm);

// The program's exit status: 1 when the validation layer (WASMGPU_VALIDATION=1)
// reported anything during the run, else 0.
int finish(const ExampleContext& ctx);

}  // namespace wasmgpu::examples
