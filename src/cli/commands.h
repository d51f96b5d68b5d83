// The `wasmgpu` command-line tool: one function registers each subcommand.
#pragma once

#include <CLI/CLI.hpp>

namespace wasmgpu::cli {

void add_devices_command(CLI::App& app);
void add_compile_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_call_command(CLI::App& app);
void add_spectest_command(CLI::App& app);
void add_reflect_command(CLI::App& app);
void add_bindgen_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_selftest_command(CLI::App& app);
void add_cc_command(CLI::App& app);

}  // namespace wasmgpu::cli
