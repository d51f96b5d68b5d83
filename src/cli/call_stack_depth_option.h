// --call-stack-depth N, shared by the commands that compile modules.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "spirv/compiler.h"

namespace wasmgpu::cli {

inline void add_call_stack_depth_option(CLI::App* cmd, spirv::CompileOptions* options) {
  cmd->add_option("--call-stack-depth", options->max_call_depth,
                  "Calls that may be active at once within recursive functions before the invocation "
                  "traps with call stack exhaustion (default " +
                      std::to_string(spirv::kDefaultCallStackDepth) +
                      "); each recursive component keeps that many frames per invocation")
      ->check(CLI::Range(1u, 1u << 24));
}

}  // namespace wasmgpu::cli
