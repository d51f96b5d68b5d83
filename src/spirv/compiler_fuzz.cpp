// Fuzz target: the compiler on valid modules. Binaryen's `wasm-opt -ttf` turns
// random bytes into valid modules (scripts/fuzz.sh makes them); what the
// validator rejects is skipped. Every exported function that has a kernel's
// signature is compiled as a kernel, and all exported functions together as
// calls, under one of the option sets the runtime can choose (picked from the
// input, so that a replay is repeatable). The compiler may refuse a module
// with an error; it must never crash, and what it emits must pass spirv-val.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "frontend/kernel_signature.h"
#include "spirv/compiler.h"
#include "wasm/decoder.h"

namespace {

using namespace wasmgpu;

void expect_valid(const std::vector<uint32_t>& words, const std::string& what) {
  Status valid = spirv::validate(words);
  if (valid.ok()) return;
  std::fprintf(stderr, "%s: the compiler emitted invalid SPIR-V: %s\n", what.c_str(),
               valid.error().to_string().c_str());
  std::abort();
}

spirv::CompileOptions options_for(std::span<const uint8_t> bytes) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (uint8_t b : bytes) hash = (hash ^ b) * 16777619u;
  spirv::CompileOptions options;
  options.validate = false;  // checked here, so that a finding aborts
  options.float_mode = (hash & 1) ? spirv::FloatMode::Fast : spirv::FloatMode::Exact;
  options.loop_exit_breaks = (hash & 2) != 0;
  options.subgroup_vote = (hash & 4) != 0;
  options.f64_subnormals_native = (hash & 8) != 0;
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  auto module = wasm::decode_and_validate(bytes);
  if (!module.ok()) return 0;
  const spirv::CompileOptions options = options_for(bytes);
  std::vector<std::string> functions;
  for (const wasm::Export& e : module->exports) {
    if (e.kind != wasm::ExternalKind::Func) continue;
    functions.push_back(e.name);
    if (!frontend::check_kernel_signature(*module, e.name).ok()) continue;
    auto kernel = spirv::compile_kernel(*module, e.name, options);
    if (kernel.ok()) expect_valid(kernel->words, "kernel '" + e.name + "'");
  }
  if (!functions.empty()) {
    auto calls = spirv::compile_calls(*module, functions, options);
    if (calls.ok()) expect_valid(calls->words, "the calls of " + std::to_string(functions.size()) + " exports");
  }
  return 0;
}
