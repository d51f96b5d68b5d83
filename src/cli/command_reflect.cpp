// wasmgpu reflect X.spv|X.wasm: a module's kernel interfaces as JSON.
#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/kernel_interfaces.h"
#include "reflect/interface_json.h"

namespace wasmgpu::cli {
namespace {

void run_reflect(const std::string& path, const std::optional<std::string>& entry) {
  FileInterfaces file = load_interfaces_or_fail(path, entry);
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const KernelInterface& k : file.kernels) kernels.push_back(reflect::to_json(k));
  nlohmann::ordered_json out{{"source", file.source == KernelSource::Wasm ? "wasm" : "spirv"}, {"kernels", kernels}};
  if (file.source == KernelSource::Spirv) {
    nlohmann::ordered_json structs = nlohmann::ordered_json::array();
    for (const StructLayout& s : file.nested_structs) structs.push_back(reflect::to_json(s));
    out["structs"] = std::move(structs);
  }
  fmt::print("{}\n", out.dump(2));
}

}  // namespace

void add_reflect_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto entry = std::make_shared<std::optional<std::string>>();
  CLI::App* cmd = app.add_subcommand("reflect", "Print the interfaces of a module's kernels as JSON");
  cmd->footer(R"(Input: SPIR-V (GLSL, HLSL, Slang, rust-gpu ...; reflected with SPIRV-Cross) or
wasm (kernel signatures with the WASMGPU_DEFINE_KERNEL metadata).

Output: {"source": "spirv"|"wasm", "kernels": [KERNEL...], "structs": [STRUCT...]}
KERNEL: {"name", "source", "params": [PARAM...]}, and for SPIR-V also
  "workgroup_size": [x,y,z] or null when specialisable, "workgroup_size_default",
  "workgroup_size_spec_ids": [id or null, ...], "spec_constants": [{"id", "name",
  "type", "default"}], "push_constant_size", "shared_memory_bytes".
PARAM, in the order positional arguments bind (SPIR-V: descriptors by set and
  binding, then push-constant members by offset): "index", "name", "kind"
  (scalar, bytes, buffer, uniform_buffer, storage_image, sampled_image,
  sampler, combined_image_sampler), "writable", and where they apply "scalar"
  (i32 u32 i64 u64 f32 f64), "set", "binding", "push_offset", "size" (bytes of
  a value), "element_type" / "element_size" (a buffer's element; wasm: the
  pointee), "layout" (a STRUCT).
STRUCT: {"name", "size" (a runtime array counts 0 elements), "members":
  [{"name", "type", "offset", "size", "array_stride"?}]}; "structs" lists the
  structs nested in parameter layouts.
Wasm kernels without metadata have parameters "arg1", "arg2"... typed by the
signature (pointers are i32 scalars there).)");
  cmd->add_option("input", *path, "The .spv or .wasm module")->required();
  cmd->add_option("-e,--entry", *entry, "Only this kernel (entry point or export)");
  cmd->callback([path, entry] { run_reflect(*path, *entry); });
}

}  // namespace wasmgpu::cli
