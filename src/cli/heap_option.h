// --heap, shared by the commands that load modules onto a device (run, call).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace wasmgpu::cli {

inline void add_heap_option(CLI::App* cmd, std::optional<std::string>* heap) {
  cmd->add_option("--heap", *heap,
                  "Bytes of the module's device heap for malloc, Rust's alloc and AssemblyScript's new in kernels "
                  "(suffix k or M; 8k to 1024M; default: WASMGPU_HEAP, else 8M); a full heap gives NULL");
}

}  // namespace wasmgpu::cli
