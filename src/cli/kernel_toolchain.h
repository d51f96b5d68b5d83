// The tools `wasmgpu cc` compiles kernels with: clang-19 and wasm-ld-19, an
// archiver for the kernels' libc, wasi-libc's headers and libc.a, and the
// kernel header wasmgpu.h. Found as cmake/WasmKernels.cmake finds them (the
// same program names, the same default sysroot), plus the places a Debian
// system or an installed wasmgpu keeps them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wasmgpu::cli {

// What the user chose on the command line; unset: search.
struct ToolchainChoice {
  std::optional<std::string> clang;
  std::optional<std::string> wasm_ld;
  std::optional<std::string> ar;
  std::optional<std::string> wasi_sysroot;  // holds include/wasm32-wasi and lib/wasm32-wasi
  std::optional<std::string> include_dir;   // holds wasmgpu.h
};

struct Toolchain {
  std::string clang;
  std::string wasm_ld;
  std::string ar;                // empty until needed (find_archiver)
  std::string wasi_include_dir;  // SYSROOT/include/wasm32-wasi
  std::string wasi_libc;         // SYSROOT/lib/wasm32-wasi/libc.a
  std::string include_dir;       // the directory of wasmgpu.h
  // libc++ for wasm32-wasi (Debian's libc++-19-dev-wasm32 and
  // libc++abi-19-dev-wasm32, or a wasi-sdk sysroot); empty when not found.
  std::string libcxx_include_dir;  // .../wasm32-wasi/c++/v1
  std::string libcxx;              // libc++.a
  std::string libcxxabi;           // libc++abi.a
};

// Finds the compiler, wasi-libc and the kernel header (what compiling
// needs), or fails naming what is missing and the Debian package that has it.
Toolchain find_compile_toolchain(const ToolchainChoice& choice);
// Adds the linker and the archiver (what linking needs), or fails likewise.
void find_link_tools(const ToolchainChoice& choice, Toolchain& toolchain);

// The flags every kernel source is compiled with (before the user's).
std::vector<std::string> kernel_compile_flags(const Toolchain& toolchain);
// The flags C++ sources get in addition: kernels have no exception or RTTI runtime.
// and libc++'s headers where they were found.
std::vector<std::string> kernel_cxx_flags(const Toolchain& toolchain);

}  // namespace wasmgpu::cli
