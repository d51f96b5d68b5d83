// --no-cache and --verbose, shared by the commands that load modules on a
// device, and the line --verbose prints about the caches (docs/caching.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "wasmgpu/device.hpp"

namespace wasmgpu::cli {

struct CacheCliOptions {
  bool cache = true;  // DeviceOptions::cache
  bool verbose = false;
};

inline void add_cache_options(CLI::App* cmd, CacheCliOptions* options) {
  cmd->add_flag_function(
      "--no-cache", [options](int64_t) { options->cache = false; },
      "Compile everything from scratch; read and write no cache (as WASMGPU_CACHE=0)");
  cmd->add_flag("-v,--verbose", options->verbose,
                "Print what the caches did to stderr: wasm-to-SPIR-V compiles, cache hits, pipelines");
}

// "cache DIR: 0 compiled, 3 from cache; pipelines: 1 created (0.4 ms in the driver), 1 found in the pipeline cache
// (12.0 KiB loaded)"
std::string cache_report(const CacheStats& stats);

}  // namespace wasmgpu::cli
