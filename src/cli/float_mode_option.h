// --float-mode exact|fast, shared by the commands that compile kernels.
#pragma once

#include <CLI/CLI.hpp>

#include "spirv/compiler.h"

namespace wasmgpu::cli {

inline void add_float_mode_option(CLI::App* cmd, spirv::CompileOptions* options) {
  cmd->add_option_function<std::string>(
         "--float-mode", [options](const std::string& text) { options->float_mode = *spirv::parse_float_mode(text); },
         "Float semantics: exact (default: wasm's bits on every device) or fast (the device's own "
         "float instructions); see docs/float-modes.md")
      ->check(CLI::IsMember({"exact", "fast"}));
}

}  // namespace wasmgpu::cli
