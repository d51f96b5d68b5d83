#include "cli/kernel_interfaces.h"

#include "cli/cli_support.h"
#include "reflect/spirv_reflect.h"
#include "reflect/wasm_interface.h"
#include "wasm/decoder.h"

namespace wasmgpu::cli {

FileInterfaces load_interfaces_or_fail(const std::string& path, const std::optional<std::string>& entry) {
  auto bytes = read_file(path);
  if (!bytes) fail(bytes.error().to_string());
  FileInterfaces out;
  if (reflect::is_spirv(*bytes)) {
    out.source = KernelSource::Spirv;
    auto words = reflect::spirv_words(*bytes);
    if (!words) fail(path + ": " + words.error().to_string());
    auto reflection = reflect::reflect_spirv(*words);
    if (!reflection) fail(path + ": " + reflection.error().to_string());
    out.kernels = std::move(reflection->kernels);
    out.nested_structs = std::move(reflection->nested_structs);
  } else {
    auto module = wasm::decode_and_validate(*bytes);
    if (!module) fail(path + ": neither SPIR-V nor a valid wasm module: " + module.error().to_string());
    auto interfaces = reflect::wasm_interfaces(*module);
    if (!interfaces) fail(path + ": " + interfaces.error().to_string());
    out.kernels = std::move(*interfaces);
  }
  if (entry) {
    std::string names;
    for (KernelInterface& k : out.kernels)
      if (k.name == *entry) {
        KernelInterface only = std::move(k);
        out.kernels = {std::move(only)};
        return out;
      }
    for (const KernelInterface& k : out.kernels) names += (names.empty() ? "" : ", ") + k.name;
    fail(path + " has no kernel '" + *entry + "' (kernels: " + (names.empty() ? "none" : names) + ")");
  }
  return out;
}

}  // namespace wasmgpu::cli
