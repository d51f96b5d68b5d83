#include "cli/wgsl_bundle.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "abi/launch_abi.h"
#include "cli/cli_support.h"
#include "frontend/kernel_signature.h"
#include "reflect/interface_json.h"
#include "reflect/wasm_interface.h"
#include "wasm/kernel_metadata.h"
#include "wgsl/wgsl_abi.h"

namespace wasmgpu::cli {

using json = nlohmann::ordered_json;

namespace {

// The numbers of wgsl/wgsl_abi.h and abi/launch_abi.h a launcher needs, so
// that it reads them from the bundle instead of copying them.
json abi_json() {
  json kinds = json::array();
  for (uint32_t kind = 0; kind < abi::kTrapKindCount; ++kind) kinds.push_back(abi::to_string(abi::TrapKind(kind)));
  json overrides = json::array();
  for (const char* name : wgsl::kWorkgroupSizeOverrides) overrides.push_back(name);
  return json{
      {"bindings",
       {{"launch", wgsl::kLaunchBinding},
        {"traps", wgsl::kTrapBinding},
        {"memory", wgsl::kMemoryBinding},
        {"first_buffer", wgsl::kFirstBufferBinding}}},
      {"launch",
       {{"words", wgsl::kLaunchWords},
        {"base_index", wgsl::kLaunchBaseIndex},
        {"count", wgsl::kLaunchCount},
        {"region_count", wgsl::kLaunchRegionCount},
        {"zero", wgsl::kLaunchZero},
        {"args", wgsl::kLaunchArgs},
        {"arg_words", wgsl::kLaunchArgWords},
        {"region_words", wgsl::kRegionWords}}},
      {"entry_point", wgsl::kEntryPoint},
      {"workgroup_size_overrides", std::move(overrides)},
      {"trap_record",
       {{"words", abi::kTrapRecordSize / 4},
        {"count", abi::kTrapCount / 4},
        {"lowest_index", abi::kTrapLowestIndex / 4},
        {"no_trap", abi::kNoTrapIndex},
        {"kinds", std::move(kinds)}}},
      {"addresses",
       {{"buffer_base", abi::kBufferAddressBase},
        {"end", abi::kAddressSpaceEnd},
        {"alignment", abi::kBufferAlignment},
        {"guard", abi::kBufferGuard}}},
  };
}

}  // namespace

BundleResult write_bundle(const wasm::Module& module, const std::string& path, const std::optional<std::string>& kernel,
                          const wgsl::WgslOptions& options) {
  auto interfaces = reflect::wasm_interfaces(module);
  if (!interfaces) fail(path + ": " + interfaces.error().to_string());
  auto metadata = wasm::read_kernel_metadata(module);
  if (!metadata) fail(path + ": " + metadata.error().to_string());

  std::vector<const KernelInterface*> chosen;
  if (kernel) {
    if (Status signature = frontend::check_kernel_signature(module, *kernel); !signature.ok())
      fail(path + ": '" + *kernel + "' is not a kernel: " + signature.error().to_string());
    for (const KernelInterface& k : *interfaces)
      if (k.name == *kernel) chosen.push_back(&k);
  } else {
    for (const KernelInterface& k : *interfaces) chosen.push_back(&k);
  }
  if (chosen.empty()) fail(path + " exports no kernel (see `wasmgpu inspect " + path + "`)");

  json kernels = json::array();
  json refused = json::array();
  std::optional<json> memory;
  BundleResult result;
  for (const KernelInterface* interface : chosen) {
    auto shader = wgsl::compile_kernel(module, interface->name, options);
    if (!shader) {
      // One kernel asked for by name must be written; of all kernels, the
      // refused ones are listed with their reasons.
      if (kernel) fail(path + ": " + shader.error().to_string());
      refused.push_back(json{{"kernel", interface->name}, {"reason", shader.error().to_string()}});
      result.warnings +=
          "kernel '" + interface->name + "' left out of the bundle: " + shader.error().to_string() + "\n";
      continue;
    }
    // The compiler's own ABI line (wgsl/wgsl_compiler.h, WgslKernel::abi_json).
    const json abi = json::parse(shader->abi_json);
    json kernel_memory{{"bytes", abi.at("memory_bytes")}, {"data", abi.at("data")}};
    // The module memory is the module's: every kernel sees the same one.
    if (memory && *memory != kernel_memory)
      fail(path + ": kernel '" + interface->name + "' describes another module memory than the kernels before it");
    memory = std::move(kernel_memory);
    bool has_metadata = false;
    for (const wasm::KernelMetadata& m : *metadata) has_metadata |= m.kernel == interface->name;
    kernels.push_back(json{
        {"name", interface->name},
        {"interface", reflect::to_json(*interface)},
        {"metadata", has_metadata},
        {"wasm_params", abi.at("params")},
        {"buffer_bindings", shader->buffer_bindings},
        // The shadow stack's binding and bytes per invocation, or null.
        {"stack", shader->stack_slot_bytes == 0
                      ? json(nullptr)
                      : json{{"binding", shader->stack_binding}, {"slot_bytes", shader->stack_slot_bytes}}},
        // A wasm kernel fixes no workgroup size: the launch sets the overrides.
        {"workgroup_size", nullptr},
        // Workgroup-shared bytes; whether a 1-D launch must cover whole
        // workgroups (a barrier); the WebGPU features the device needs.
        {"shared_bytes", shader->shared_bytes},
        {"barriers", shader->barriers},
        {"features", abi.at("features")},
        {"wgsl", shader->source},
    });
  }
  if (kernels.empty()) {
    std::string reasons;
    for (const json& r : refused) reasons += "\n  " + r.at("reason").get<std::string>();
    fail(path + ": the WGSL back end wrote none of its kernels:" + reasons);
  }
  json bundle{
      {"format", kBundleFormat},
      {"version", kBundleVersion},
      {"module", std::filesystem::path(path).filename().string()},
      {"max_storage_buffers", options.max_storage_buffers},
      {"abi", abi_json()},
      {"memory", *memory},
      {"kernels", std::move(kernels)},
      {"refused", std::move(refused)},
  };
  result.json = bundle.dump(1) + "\n";
  return result;
}

}  // namespace wasmgpu::cli
