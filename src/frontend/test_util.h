// Test helpers (header-only, used by *_test.cpp of every stage): build wasm
// modules from wat text with wat2wasm and from C with clang-19 + wasm-ld-19
// (called directly: the clang driver's link step would run wasm-opt when it is
// on the PATH).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "wasm/decoder.h"

namespace wasmgpu::frontend::testing {

inline std::filesystem::path scratch_path(const std::string& extension) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() / ("wasmgpu_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir / ("t" + std::to_string(counter++) + extension);
}

inline std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& path, std::string_view text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Runs a shell command; returns its exit status, with its output in `log`.
inline int run(const std::string& command, std::string* log) {
  auto out = scratch_path(".log");
  int status = std::system((command + " >" + out.string() + " 2>&1").c_str());
  auto bytes = read_file(out);
  if (log) log->assign(bytes.begin(), bytes.end());
  return status;
}

// wat text -> wasm bytes (empty on failure, with a test failure recorded).
// `features`: wat2wasm's feature flags. Modules with ref.func pass "" (the
// default features): with every feature on, wabt 1.0.32 types ref.func as a
// typed function reference that funcref positions reject.
inline std::vector<uint8_t> wat_to_wasm(std::string_view wat, const std::string& features = "--enable-all") {
  auto source = scratch_path(".wat"), output = scratch_path(".wasm");
  write_file(source, wat);
  std::string log;
  if (run("wat2wasm " + features + " --debug-names " + source.string() + " -o " + output.string(), &log) != 0) {
    ADD_FAILURE() << "wat2wasm failed:\n" << log;
    return {};
  }
  return read_file(output);
}

// The decoded module of `wat` (wat_to_wasm); a test failure and an empty
// module when it does not decode.
inline wasm::Module decode_wat(std::string_view wat, const std::string& features = "--enable-all") {
  Result<wasm::Module> module = wasm::decode(wat_to_wasm(wat, features));
  if (!module.ok()) {
    ADD_FAILURE() << module.error().to_string();
    return {};
  }
  return std::move(module).value();
}

// C source -> wasm bytes, compiled at `opt` (e.g. "-O0").
inline std::vector<uint8_t> c_to_wasm(std::string_view c, const std::string& opt, const std::string& flags = "") {
  auto source = scratch_path(".c"), object = scratch_path(".o"), output = scratch_path(".wasm");
  write_file(source, c);
  std::string log;
  if (run("clang-19 --target=wasm32 -nostdlib -ffreestanding " + opt + " " + flags + " -c " + source.string() + " -o " +
              object.string(),
          &log) != 0) {
    ADD_FAILURE() << "clang failed:\n" << log;
    return {};
  }
  if (run("wasm-ld-19 --no-entry " + object.string() + " -o " + output.string(), &log) != 0) {
    ADD_FAILURE() << "wasm-ld failed:\n" << log;
    return {};
  }
  return read_file(output);
}

}  // namespace wasmgpu::frontend::testing
