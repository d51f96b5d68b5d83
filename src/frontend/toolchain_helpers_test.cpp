#include "frontend/toolchain_helpers.h"

#include <gtest/gtest.h>

#include "frontend/kernel_signature.h"
#include "frontend/test_util.h"

namespace wasmgpu::frontend {
namespace {

TEST(ToolchainHelpers, EmscriptenAndCompilerRuntimeExportsAreHelpers) {
  for (const char* name : {"stackSave", "stackRestore", "stackAlloc", "emscripten_stack_init",
                           "emscripten_stack_get_free", "_emscripten_stack_restore", "_initialize", "_start",
                           "__wasm_call_ctors", "__errno_location", "__new", "__pin"})
    EXPECT_TRUE(toolchain_helper(name).has_value()) << name;
  for (const char* name : {"saxpy", "stack", "stackRestorer", "_kernel", "initialize", "emscripten"})
    EXPECT_FALSE(toolchain_helper(name).has_value()) << name;
}

// emcc's stackRestore has a kernel's shape: (i32) -> ().
constexpr const char* kModule = R"((module
  (func (export "stackRestore") (param i32))
  (func (export "scale") (param i32 f32))))";

TEST(ToolchainHelpers, AHelperWithAKernelsShapeIsNotAKernel) {
  wasm::Module module = testing::decode_wat(kModule);
  EXPECT_TRUE(check_kernel_signature(module, "scale").ok());
  Status refused = check_kernel_signature(module, "stackRestore");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::InvalidArgument);
  EXPECT_EQ(refused.error().message,
            "'stackRestore' is Emscripten's stack helper (sets the stack pointer), not a kernel (a kernel named so "
            "must be recorded with WASMGPU_DEFINE_KERNEL)");
}

// A metadata record (WASMGPU_DEFINE_KERNEL's) says the source meant a kernel.
TEST(ToolchainHelpers, ARecordedKernelKeepsAHelpersName) {
  wasm::Module module = testing::decode_wat(kModule);
  std::string record("\x01stackRestore\0\x01\x00\x04\0\0\0\x04\0\0\0i\0int\0\0", 31);
  module.custom_sections.push_back({"wasmgpu.kernels", 0, std::vector<uint8_t>(record.begin(), record.end())});
  EXPECT_TRUE(check_kernel_signature(module, "stackRestore").ok());
}

}  // namespace
}  // namespace wasmgpu::frontend
