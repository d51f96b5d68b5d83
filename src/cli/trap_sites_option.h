// --trap-sites, shared by the commands that load modules onto a device.
#pragma once

#include <CLI/CLI.hpp>

#include "spirv/compiler.h"

namespace wasmgpu::cli {

inline void add_trap_sites_option(CLI::App* cmd, spirv::CompileOptions* options) {
  cmd->add_flag_callback(
      "--trap-sites", [options] { options->trap_sites = true; },
      "Report where a kernel traps: the function and the module offset of the trapping instruction\n"
      "(as wasm-objdump -d prints it); costs a store per instruction that may trap (also WASMGPU_TRAP_SITES=1)");
}

}  // namespace wasmgpu::cli
