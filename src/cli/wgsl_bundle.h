// The kernel bundle of `wasmgpu compile --target wgsl --bundle`: one JSON
// document with the WGSL of a module's kernels and everything a launcher
// needs besides (the kernels' interfaces as `wasmgpu reflect` prints them,
// the bindings, the launch words, the trap record, the wasm address layout
// and the module memory's initial contents). js/lib/wasmgpu.mjs loads it;
// docs/webgpu.md ("The runtime package") documents the format.
#pragma once

#include <optional>
#include <string>

#include "wasm/module.h"
#include "wgsl/wgsl_compiler.h"

namespace wasmgpu::cli {

inline constexpr const char* kBundleFormat = "wasmgpu-wgsl-bundle";
inline constexpr int kBundleVersion = 1;

struct BundleResult {
  std::string json;      // the bundle, pretty-printed, ending in a newline
  std::string warnings;  // one line per kernel left out (refused), for stderr
};

// `kernel`: only that export (the command fails when the back end refuses
// it); without it, every export with a kernel signature, the refused ones
// listed under "refused" with their reasons. Fails (cli::fail) with a
// one-line error when no kernel is written, the module has no kernel, the
// named export is no kernel, or its metadata is malformed.
BundleResult write_bundle(const wasm::Module& module, const std::string& path, const std::optional<std::string>& kernel,
                          const wgsl::WgslOptions& options);

}  // namespace wasmgpu::cli
