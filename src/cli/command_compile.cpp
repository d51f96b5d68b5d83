// wasmgpu compile IN.wasm -o OUT.spv [--kernel NAME] [--emit spv|spvasm|wgsl] [--target spirv|wgsl] [--bundle]
#include <fmt/core.h>

#include "cli/cli_support.h"
#include "cli/commands.h"
#include "cli/call_stack_depth_option.h"
#include "cli/float_mode_option.h"
#include "cli/wgsl_bundle.h"
#include "frontend/kernel_signature.h"
#include "spirv/compiler.h"
#include "wgsl/wgsl_compiler.h"

namespace wasmgpu::cli {
namespace {

struct CompileArgs {
  std::string input;
  std::string output;
  std::string kernel;
  std::string emit = "spv";
  std::string target = "spirv";
  bool bundle = false;
  wgsl::WgslOptions wgsl;
  spirv::CompileOptions options;
};

// The export to compile when --kernel is not given: the only kernel, if exactly one.
std::string default_kernel(const wasm::Module& module, const std::string& path) {
  std::vector<std::string> kernels;
  for (const wasm::Export& e : module.exports)
    if (e.kind == wasm::ExternalKind::Func && frontend::check_kernel_signature(module, e.name).ok())
      kernels.push_back(e.name);
  if (kernels.size() == 1) return kernels[0];
  if (kernels.empty()) fail(path + " exports no kernel (see `wasmgpu inspect " + path + "`)");
  std::string names;
  for (const auto& k : kernels) names += (names.empty() ? "" : ", ") + k;
  fail(path + " exports several kernels (" + names + "): choose one with --kernel");
}

void write_text_or_fail(const std::string& output, const std::string& text) {
  if (output == "-") {
    fmt::print("{}", text);
    return;
  }
  auto written = write_file(output, text.data(), text.size());
  if (!written) fail(written.error().to_string());
}

void run_compile(const CompileArgs& args) {
  wasm::Module module = load_module_or_fail(args.input);
  const bool wgsl = args.target == "wgsl" || args.emit == "wgsl";
  if (args.bundle) {
    if (!wgsl) fail("--bundle writes a WGSL kernel bundle: give --target wgsl");
    if (args.emit != "spv" && args.emit != "wgsl")
      fail("--bundle writes JSON with WGSL; --emit " + args.emit + " is SPIR-V's");
    BundleResult bundle =
        write_bundle(module, args.input, args.kernel.empty() ? std::nullopt : std::optional(args.kernel), args.wgsl);
    if (!bundle.warnings.empty()) fmt::print(stderr, "{}", bundle.warnings);
    write_text_or_fail(args.output, bundle.json);
    return;
  }
  std::string kernel = args.kernel.empty() ? default_kernel(module, args.input) : args.kernel;
  if (wgsl) {
    if (args.emit != "spv" && args.emit != "wgsl")
      fail("--target wgsl writes WGSL; --emit " + args.emit + " is SPIR-V's");
    auto shader = wgsl::compile_kernel(module, kernel, args.wgsl);
    if (!shader) fail(args.input + ": " + shader.error().to_string());
    write_text_or_fail(args.output, shader->source);
    return;
  }
  auto compiled = spirv::compile_kernel(module, kernel, args.options);
  if (!compiled) fail(args.input + ": " + compiled.error().to_string());
  if (args.emit == "spvasm") {
    auto text = spirv::disassemble(compiled->words);
    if (!text) fail(text.error().to_string());
    write_text_or_fail(args.output, *text);
    return;
  }
  if (args.output == "-") fail("binary SPIR-V cannot be written to the terminal; use -o FILE or --emit spvasm");
  auto written = write_file(args.output, compiled->words.data(), compiled->words.size() * sizeof(uint32_t));
  if (!written) fail(written.error().to_string());
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto args = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand("compile", "Compile a wasm kernel to a SPIR-V (or WGSL) compute shader");
  cmd->footer(
      "The shader is SPIR-V 1.5 for Vulkan 1.2 with entry point `main`; its workgroup size is\n"
      "set through specialization constants 0, 1, 2. Constant 3 is how many dimensions the\n"
      "launch's invocations extend over (1 to 3) and constant 4 whether invocations past the\n"
      "count may run (0 or 1); their defaults, 3 and 1, are right for every launch. Constant 5\n"
      "has bit p set where every access through pointer parameter p that the compiler recorded\n"
      "was proven in bounds for the launch (its range check then passes); the default 0 keeps\n"
      "every check. `wasmgpu inspect` counts the recorded accesses; docs/compiler.md says more.\n"
      "Every output passes spirv-val, which runs on each compile unless --no-validate (on large\n"
      "modules it takes most of the time).\n"
      "Example: wasmgpu compile saxpy.wasm -o saxpy.spv\n"
      "\n"
      "--target wgsl (or --emit wgsl) writes a WGSL compute shader for WebGPU instead, entry point\n"
      "`main`, workgroup size from the overrides wg_x, wg_y, wg_z. Its first line is\n"
      "`// wasmgpu-wgsl-abi {...}`: the kernel's parameters, module memory and buffer bindings as\n"
      "JSON, which js/run_wgsl.mjs reads to launch it through Node and Dawn. Kernels using i64, f64,\n"
      "atomics, subgroups, barriers, shared memory, images, tables, recursion or the shadow stack\n"
      "are refused with the function and the reason; f32 division and sqrt are the device's\n"
      "(docs/webgpu.md says what is mapped and what is next).\n"
      "Example: wasmgpu compile saxpy.wasm --target wgsl -o saxpy.wgsl\n"
      "\n"
      "--target wgsl --bundle writes a kernel bundle for the JavaScript package in js/ (Node and\n"
      "browsers): one JSON file {\"format\": \"wasmgpu-wgsl-bundle\", \"version\": 1, \"abi\", \"memory\",\n"
      "\"kernels\": [{\"name\", \"interface\" (as `wasmgpu reflect` prints it), \"metadata\",\n"
      "\"wasm_params\", \"buffer_bindings\", \"wgsl\"}], \"refused\"}: each kernel's WGSL and parameters,\n"
      "the bindings, launch words, trap record and address layout the WGSL expects, and the module\n"
      "memory's initial bytes. Without --kernel it holds every kernel the back end writes; the\n"
      "others are listed under \"refused\" with the reason (and on stderr). docs/webgpu.md, \"The\n"
      "runtime package\", describes every field.\n"
      "Example: wasmgpu compile saxpy.wasm --target wgsl --bundle -o saxpy.bundle.json");
  cmd->add_option("input", args->input, "The wasm module")->required();
  cmd->add_option("-o,--output", args->output, "Output file ('-' for standard output with --emit spvasm or wgsl)")
      ->required();
  cmd->add_option("-k,--kernel", args->kernel,
                  "Exported kernel to compile (default: the only kernel; with --bundle, every kernel)");
  cmd->add_flag("--bundle", args->bundle,
                "With --target wgsl: write a kernel bundle (JSON: the WGSL of the module's kernels, their\n"
                "interfaces and the launch ABI) for the js/ package instead of one .wgsl file");
  cmd->add_option("--emit", args->emit, "Output format: spv (binary), spvasm (text) or wgsl (as --target wgsl)")
      ->check(CLI::IsMember({"spv", "spvasm", "wgsl"}));
  cmd->add_option("--target", args->target, "Shader language: spirv (Vulkan, the default) or wgsl (WebGPU)")
      ->check(CLI::IsMember({"spirv", "wgsl"}));
  cmd->add_option("--max-storage-buffers", args->wgsl.max_storage_buffers,
                  "WGSL: the adapter's maxStorageBuffersPerShaderStage (default 8, WebGPU's minimum); two go to\n"
                  "the trap record and the module memory, the rest to buffers, one per i32 parameter")
      ->check(CLI::Range(3u, 1024u));
  cmd->add_flag_callback(
      "--no-validate", [args] { args->options.validate = false; },
      "Skip spirv-val on the output (the tests validate every shape the compiler emits)");
  cmd->add_flag_callback(
      "--no-subgroup-vote", [args] { args->options.subgroup_vote = false; },
      "For devices without subgroup votes: four words whose 16-alignment only the launch tells are\n"
      "always word accesses (by default a subgroup vote picks one 16-byte access where all are aligned)");
  cmd->add_flag_callback(
      "--no-loop-exit-breaks", [args] { args->options.loop_exit_breaks = false; },
      "As the runtime compiles for NVIDIA's driver: a loop's early exit to its parent block goes through\n"
      "a flag variable (by default it is a plain break, and the code after the loop runs on its fall-through path)");
  cmd->add_flag_callback(
      "--checked-f64-subnormals", [args] { args->options.f64_subnormals_native = false; },
      "As the runtime compiles for a device that may flush f64 subnormals (no shaderDenormPreserveFloat64,\n"
      "and no `wasmgpu selftest` that saw them kept): exact mode's f64 + - * keep the native result only\n"
      "where no subnormal is involved, else compute it on integers (by default the native instruction)");
  add_float_mode_option(cmd, &args->options);
  add_call_stack_depth_option(cmd, &args->options);
  cmd->callback([args] { run_compile(*args); });
}

}  // namespace wasmgpu::cli
