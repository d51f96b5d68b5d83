// Test-only helpers for runtime tests: a fixture that owns an Instance and a
// Device and fails the test on any validation message, and a GLSL compiler
// (glslangValidator at test time) for shaders that implement the kernel ABI.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/instance.h"
#include "spirv/compiler.h"

namespace wasmgpu::runtime::testing {

// Compiles a GLSL compute shader to SPIR-V for Vulkan 1.2; fails the test
// (and returns nothing) when glslangValidator rejects it.
std::vector<uint32_t> compile_glsl(const std::string& source);

// Assembles WebAssembly text with wabt's wat2wasm; fails the test (and
// returns nothing) when it is rejected.
std::vector<uint8_t> wat_to_wasm(const std::string& wat);

// Calls every export of the module `wat` (exports take no parameters and
// return i32 and i64 values) on `device` and compares each result with wabt's
// wasm-interp running the same module; returns how many were compared.
int expect_exports_match_wasm_interp(Device& device, const std::string& wat, const spirv::CompileOptions& options = {});

// Prepends the ABI prologue (push constants, LaunchBlock readers, address
// translation through the region table, trap reporting) to `body`, which
// defines `void kernel(uint index)`.
std::string abi_shader(const std::string& body);

// A CompiledKernel from GLSL written with abi_shader().
spirv::CompiledKernel glsl_kernel(const std::string& name, const std::string& body, std::vector<wasm::ValType> params,
                                  uint64_t memory_bytes = 0, uint32_t stack_slot_size = 0);

class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  virtual DeviceOptions device_options() const { return {}; }

  std::optional<Instance> instance;
  std::optional<Device> device;
};

}  // namespace wasmgpu::runtime::testing
