// wasmgpu inspect IN.wasm: what a module exports and which exports can run as kernels.
#include <fmt/core.h>

#include <map>

#include "api/launch_shape.h"
#include "cli/cli_support.h"
#include "cli/commands.h"
#include "cli/call_stack_depth_option.h"
#include "cli/float_mode_option.h"
#include "frontend/call_graph.h"
#include "frontend/kernel_signature.h"
#include "frontend/start_function.h"
#include "spirv/compiler.h"
#include "support/environment.h"
#include "wasm/kernel_metadata.h"

namespace wasmgpu::cli {
namespace {

namespace api_internal = wasmgpu::detail;

void print_memory(const wasm::Module& module) {
  for (const wasm::Import& import : module.imports)
    if (import.kind == wasm::ExternalKind::Memory)
      fmt::print("memory: imported from {}.{} ({} pages minimum)\n", import.module, import.name,
                 import.memory.limits.min);
  for (const wasm::MemoryType& memory : module.memories) {
    fmt::print("memory: {} pages ({} KiB)", memory.limits.min, memory.limits.min * 64);
    if (memory.limits.max) fmt::print(", maximum {} pages", *memory.limits.max);
    fmt::print("\n");
  }
}

void print_imports(const wasm::Module& module) {
  if (module.imports.empty()) return;
  fmt::print("imports:\n");
  for (const wasm::Import& import : module.imports) {
    std::string detail;
    if (import.kind == wasm::ExternalKind::Func) detail = " " + signature_text(module.types.at(import.func_type));
    fmt::print("  {} {}.{}{}\n", wasm::to_string(import.kind), import.module, import.name, detail);
  }
}

// Memory access sites by path (docs/compiler.md, "Memory access paths").
void print_access_paths(const spirv::AccessPathCounts& paths) {
  if (paths.total() == 0) return;
  auto share = [&](uint32_t n) { return 100.0 * n / paths.total(); };
  fmt::print("    memory accesses: {}; {} ({:.0f}%) on fast paths, {} ({:.0f}%) one typed load or store\n",
             paths.total(), paths.fast(), share(paths.fast()), paths.typed(), share(paths.typed()));
  fmt::print(
      "      constant addresses: {} direct, {} bounds-checked; pointer parameters: {} aligned, {} unaligned; "
      "indexed static or shared data: {} aligned, {} unaligned; {} translated\n",
      paths.direct, paths.bounds_checked, paths.parameter, paths.parameter_unaligned, paths.indexed,
      paths.indexed_unaligned, paths.translated);
  if (paths.grouped != 0)
    fmt::print(
        "      {} in groups sharing one range check; {} of their accesses 16 or 8 bytes wide, {} 16 bytes "
        "wide when aligned at run time\n",
        paths.grouped, paths.wide, paths.wide_when_aligned);
  if (paths.proven_shared != 0)
    fmt::print("      {} proven inside the shared range for workgroups up to 256 or 1024 invocations (no check)\n",
               paths.proven_shared);
}

// Accesses the runtime may prove in bounds at launch (abi/launch_proof.h).
void print_launch_proof(const abi::LaunchProof& proof) {
  if (proof.accesses.empty()) return;
  std::map<uint32_t, uint32_t> by_param;
  for (const abi::ProofAccess& access : proof.accesses) ++by_param[access.param];
  std::string params;
  for (const auto& [param, count] : by_param)
    params += fmt::format("{}param {}: {}", params.empty() ? "" : ", ", param, count);
  fmt::print("      {} through pointer parameters recorded for proof at launch ({}); checks skipped where proven\n",
             proof.accesses.size(), params);
}

// The parameters WASMGPU_DEFINE_KERNEL recorded for `kernel`, if any.
void print_params(const std::vector<wasm::KernelMetadata>& metadata, const std::string& kernel) {
  for (const wasm::KernelMetadata& record : metadata) {
    if (record.kernel != kernel) continue;
    for (size_t i = 0; i < record.params.size(); ++i)
      fmt::print("    param {}: {}\n", i, wasm::describe(record.params[i]));
  }
}

// The start function, which loading the module runs once (docs/memory-model.md,
// "The start function"), and whether it can run: false when loading fails.
bool print_start(const wasm::Module& module, const spirv::CompileOptions& options) {
  if (!module.start) return true;
  const uint32_t start = *module.start;
  fmt::print("start function: '{}' (function {}): runs once when the module is loaded, before any launch or call\n",
             module.function_name(start), start);
  if (const wasm::Import* import = module.imported_function(start)) {
    fmt::print("  cannot run: it is the imported function {}.{}; loading the module fails\n", import->module,
               import->name);
    return false;
  }
  // The runtime compiles it as a call of its own (the runtime's module load).
  std::string name;
  const wasm::Module exporting = frontend::exporting_start_function(module, name);
  auto calls = spirv::compile_calls(exporting, std::span<const std::string>(&name, 1), options);
  if (!calls) {
    fmt::print("  cannot run: {}; loading the module fails\n", calls.error().to_string());
    return false;
  }
  fmt::print("  runnable: a call shader of {} SPIR-V words, one invocation\n", calls->words.size());
  return true;
}

// The mutable globals `function` may write, which refuse its launches of more
// than one invocation (docs/memory-model.md, "Globals").
void print_written_globals(const wasm::Module& module, uint32_t function, const char* what) {
  auto written = frontend::written_globals(module, std::span(&function, 1));
  if (!written || written->empty()) return;
  std::string list;
  for (uint32_t global : *written) list += (list.empty() ? "" : ", ") + frontend::describe_global(module, global);
  fmt::print("    writes mutable {}: {} are refused\n", list, what);
}

// What the driver compiles once it has inlined every call (docs/compiler.md,
// "Inlining budget").
void print_inlining(const spirv::KernelInfo& info, const spirv::CompileOptions& options) {
  if (info.functions_kept_out_of_line)
    fmt::print(
        "    driver inlining: {} instructions ({} blocks) with every call inlined, over the budget of {}; {} "
        "function{} marked DontInline, {} instructions ({} blocks) left\n",
        info.inlined_instructions, info.inlined_blocks, options.inline_budget, info.functions_kept_out_of_line,
        info.functions_kept_out_of_line == 1 ? "" : "s", info.instructions_after_inlining, info.blocks_after_inlining);
  else
    fmt::print("    driver inlining: {} instructions ({} blocks) with every call inlined, within the budget of {}\n",
               info.inlined_instructions, info.inlined_blocks, options.inline_budget);
}

void run_inspect(const std::string& path, const spirv::CompileOptions& options) {
  wasm::Module module = load_module_or_fail(path);
  fmt::print("module: {}\n", path);
  print_memory(module);
  print_imports(module);
  // inspect shows a module the runtime refuses too, saying why.
  auto metadata = wasm::read_kernel_metadata(module);
  if (!metadata) fmt::print("kernel parameter metadata refused: {}\n", metadata.error().to_string());
  const bool loads = print_start(module, options);
  // What is compiled below is shown whatever happens, but nothing runs if the load fails.
  const char* runnable = loads ? "runnable" : "compiled, but loading the module fails at its start function";
  fmt::print("exports:\n");
  for (const wasm::Export& e : module.exports) {
    if (e.kind != wasm::ExternalKind::Func) {
      fmt::print("  {} {}\n", wasm::to_string(e.kind), e.name);
      continue;
    }
    fmt::print("  func {} {}\n", e.name, signature_text(module.function_type(e.index)));
    if (metadata) print_params(*metadata, e.name);
    if (Status signature = frontend::check_kernel_signature(module, e.name); !signature.ok()) {
      fmt::print("    not a kernel: {}\n", signature.error().message);
      // `wasmgpu call` runs it in a call shader of its own.
      const std::string name = e.name;
      auto calls = spirv::compile_calls(module, std::span<const std::string>(&name, 1), options);
      if (!calls) {
        fmt::print("    not callable: {}\n", calls.error().to_string());
        continue;
      }
      fmt::print("    callable (wasmgpu call){}: a call shader of {} SPIR-V words\n",
                 loads ? "" : ", but the module cannot load (its start function cannot run)", calls->words.size());
      print_inlining(calls->info, options);
      print_written_globals(module, e.index, "launches of more than one call");
      continue;
    }
    auto compiled = spirv::compile_kernel(module, e.name, options);
    if (!compiled) {
      fmt::print("    kernel, cannot run: {}\n", compiled.error().to_string());
      continue;
    }
    const spirv::KernelInfo& info = compiled->info;
    fmt::print("    kernel: {} ({} function{} compiled, {} SPIR-V words", runnable, info.compiled_functions,
               info.compiled_functions == 1 ? "" : "s", compiled->words.size());
    if (info.stack_slot_size) fmt::print(", {} bytes of stack per invocation", info.stack_slot_size);
    if (info.call_stack_bytes) fmt::print(" ({} for the call stacks of recursive functions)", info.call_stack_bytes);
    if (info.uses_float64) fmt::print(", needs shaderFloat64");
    fmt::print(", {} floats", spirv::float_mode_name(info.float_mode));
    fmt::print(")\n");
    print_inlining(info, options);
    print_access_paths(info.memory_access_paths);
    print_launch_proof(info.launch_proof);
    print_written_globals(module, e.index, "launches of more than one invocation");
    // Launches without a workgroup size (docs/host-api.md, "Launch shapes").
    const api_internal::SizeDependence dependence = api_internal::wasm_size_dependence(module, e.name);
    fmt::print("    launch shape without a size: {}: {}\n",
               dependence.depends ? "the device heuristic's" : "autotuned (results cannot depend on it)",
               dependence.reason);
  }
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show a module's exports and which can run as kernels");
  cmd->footer(
      "A kernel is an exported function whose first parameter is the i32 invocation index,\n"
      "whose other parameters are i32, i64, f32 or f64 (pointers are i32) and which returns\n"
      "nothing. For other exports, inspect says why they are not kernels. Kernels declared\n"
      "with WASMGPU_DEFINE_KERNEL list their parameters' names and C types (pointers with\n"
      "the pointee type's size and alignment).");
  cmd->add_option("input", *path, "The wasm module")->required();
  auto options = std::make_shared<spirv::CompileOptions>();
  add_float_mode_option(cmd, options.get());
  add_call_stack_depth_option(cmd, options.get());
  cmd->callback([path, options] {
    // The budget the runtime would use (ModuleOptions::inline_budget's default).
    if (std::optional<uint64_t> budget = environment::inline_budget()) options->inline_budget = *budget;
    run_inspect(*path, *options);
  });
}

}  // namespace wasmgpu::cli
