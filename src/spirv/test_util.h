// Test helpers (header-only, used by *_test.cpp): build wasm modules
// (frontend/test_util.h), then decode and compile them. Every compile
// validates its output.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontend/test_util.h"
#include "spirv/compiler.h"
#include "wasm/decoder.h"

namespace wasmgpu::spirv::testing {

using frontend::testing::c_to_wasm;
using frontend::testing::read_file;
using frontend::testing::run;
using frontend::testing::scratch_path;
using frontend::testing::wat_to_wasm;
using frontend::testing::write_file;

inline Result<CompiledKernel> compile_bytes(const std::vector<uint8_t>& bytes, std::string_view kernel) {
  WASMGPU_ASSIGN_OR_RETURN(wasm::Module module, wasm::decode(bytes));
  return compile_kernel(module, kernel);
}

// Compiles (validating the SPIR-V) and fails the test on any error.
inline CompiledKernel expect_compiles(const std::vector<uint8_t>& bytes, std::string_view kernel) {
  auto result = compile_bytes(bytes, kernel);
  if (!result.ok()) {
    ADD_FAILURE() << "compile of '" << kernel << "' failed: " << result.error().to_string();
    return {};
  }
  EXPECT_TRUE(validate(result->words).ok());
  return std::move(result).value();
}

inline CompiledKernel compile_wat(std::string_view wat, std::string_view kernel = "k") {
  return expect_compiles(wat_to_wasm(wat), kernel);
}

// The error message of a compile that must fail.
inline std::string compile_error(const std::vector<uint8_t>& bytes, std::string_view kernel) {
  auto result = compile_bytes(bytes, kernel);
  if (result.ok()) {
    ADD_FAILURE() << "compile of '" << kernel << "' unexpectedly succeeded";
    return {};
  }
  return result.error().message;
}

inline std::string disassembly(const CompiledKernel& kernel) {
  auto text = disassemble(kernel.words);
  return text.ok() ? *text : std::string();
}

}  // namespace wasmgpu::spirv::testing
