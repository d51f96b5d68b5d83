// Exports that compilers' runtimes add beside a module's own functions, which
// are not kernels however their signatures look.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wasmgpu::frontend {

// Why `export_name` is a toolchain's runtime helper rather than a kernel
// ("Emscripten's stack helper stackRestore ..."), or nullopt for any other
// name. emcc -sSTANDALONE_WASM exports stackSave, stackRestore, stackAlloc,
// emscripten_stack_* and _initialize; stackRestore takes one i32 and returns
// nothing, the shape of a kernel, and used to be listed as a runnable one.
std::optional<std::string> toolchain_helper(std::string_view export_name);

}  // namespace wasmgpu::frontend
