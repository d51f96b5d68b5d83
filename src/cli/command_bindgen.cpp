// wasmgpu bindgen IN.wasm|IN.spv -o kernels.hpp: typed C++ stubs for a module's kernels.
#include <fmt/core.h>

#include <filesystem>

#include "bindgen/bindgen.h"
#include "cli/cli_support.h"
#include "cli/commands.h"
#include "cli/kernel_interfaces.h"

namespace wasmgpu::cli {
namespace {

struct BindgenArgs {
  std::string input;
  std::string output;
  std::string name_space = "kernels";
  std::vector<std::string> includes;
  std::optional<std::string> entry;
};

void run_bindgen(const BindgenArgs& args) {
  FileInterfaces file = load_interfaces_or_fail(args.input, args.entry);
  if (file.kernels.empty()) fail(args.input + " has no kernels");
  bindgen::Options options;
  options.name_space = args.name_space;
  options.source_name = std::filesystem::path(args.input).filename().string();
  options.includes = args.includes;
  const std::string header = bindgen::generate(file.kernels, file.nested_structs, options);
  if (args.output == "-") {
    fmt::print("{}", header);
    return;
  }
  Status written = write_file(args.output, header.data(), header.size());
  if (!written) fail(written.error().to_string());
}

}  // namespace

void add_bindgen_command(CLI::App& app) {
  auto args = std::make_shared<BindgenArgs>();
  CLI::App* cmd = app.add_subcommand("bindgen", "Generate a C++ header with a typed entry point per kernel");
  cmd->footer(R"(The header declares, in namespace NS (default: kernels), one class per kernel,
constructed from a loaded wasmgpu::Module, whose call operator takes the
kernel's arguments with their C++ types (a wrong type or count is a compile
error), and a struct Module holding them all:

  #include "kernels.hpp"
  kernels::Module k(device.load_file("saxpy.wasm"));
  k.saxpy(n, 2.0f, x, y);                  // runs and waits
  k.saxpy.record(commands, n, 2.0f, x, y); // records into a CommandBuffer

Wasm: names and pointer element types from the WASMGPU_DEFINE_KERNEL metadata
(pointers to structs need the struct's definition: --include its header;
a static_assert checks its size). Without metadata: arg1, arg2..., i32
parameters take an integer or any buffer.
SPIR-V: C++ structs for the uniform, storage and push-constant layouts, with
explicit padding and static_asserts on every offset and size; storage buffers
as Buffer<element>, uniform blocks as a value or a buffer, images and
samplers as wasmgpu::Image / wasmgpu::Sampler.)");
  cmd->add_option("input", args->input, "The .wasm or .spv module")->required();
  cmd->add_option("-o,--output", args->output, "The header to write ('-': standard output)")->required();
  cmd->add_option("--namespace", args->name_space, "Namespace of the generated code (default: kernels)");
  cmd->add_option("--include", args->includes, "A header to #include first (repeatable)");
  cmd->add_option("-e,--entry", args->entry, "Only this kernel");
  cmd->callback([args] { run_bindgen(*args); });
}

}  // namespace wasmgpu::cli
