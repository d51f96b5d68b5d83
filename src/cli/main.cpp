// wasmgpu: run WebAssembly kernels on Vulkan devices.
#include <fmt/core.h>

#include "cli/cli_support.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"wasmgpu: compile WebAssembly kernels to SPIR-V and run them on Vulkan devices"};
  app.require_subcommand(1);
  app.footer("Run `wasmgpu COMMAND --help` for a command's options.");
  wasmgpu::cli::add_cc_command(app);
  wasmgpu::cli::add_devices_command(app);
  wasmgpu::cli::add_compile_command(app);
  wasmgpu::cli::add_inspect_command(app);
  wasmgpu::cli::add_run_command(app);
  wasmgpu::cli::add_call_command(app);
  wasmgpu::cli::add_spectest_command(app);
  wasmgpu::cli::add_reflect_command(app);
  wasmgpu::cli::add_bindgen_command(app);
  wasmgpu::cli::add_bench_command(app);
  wasmgpu::cli::add_selftest_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    fmt::print(stderr, "wasmgpu: error: {} (see `wasmgpu --help`)\n", e.what());
    return e.get_exit_code();
  } catch (const wasmgpu::cli::CommandError& e) {
    fmt::print(stderr, "wasmgpu: error: {}\n", e.message);
    return wasmgpu::cli::kExitFailure;
  }
  return 0;
}
