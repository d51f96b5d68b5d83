// `wasmgpu bindgen`: a C++ header with one typed entry point per kernel,
// generated from the kernels' interfaces, against the public API
// (wasmgpu/wasmgpu.hpp). Argument types are checked by the C++ compiler:
// a wrong type or count does not compile. docs/bindgen.md shows the output.
#pragma once

#include "interface/kernel_interface.h"

#include <string>
#include <vector>

namespace wasmgpu::bindgen {

struct Options {
  // The namespace the generated code lives in ("kernels", or "a::b").
  std::string name_space = "kernels";
  // The module file the header was generated from (for the comment and
  // load()).
  std::string source_name;
  // Headers to #include first (wasm kernels with struct pointees need their
  // definitions: the kernel's own C header).
  std::vector<std::string> includes;
};

// The header text. `nested_structs`: SPIR-V struct layouts that parameter
// layouts name as member types (reflect::SpirvReflection::nested_structs).
std::string generate(const std::vector<KernelInterface>& kernels, const std::vector<StructLayout>& nested_structs,
                     const Options& options);

// `name` made a C++ identifier: other characters become '_', a leading digit
// or a keyword gets a '_' appended or prepended.
std::string identifier(const std::string& name);

}  // namespace wasmgpu::bindgen
