#include "wasm/code_site.h"

#include <algorithm>

#include <cstdio>

namespace wasmgpu::wasm {

std::optional<uint32_t> function_at_offset(const Module& module, uint32_t offset) {
  // Bodies lie in the code section in function order, so the candidate is
  // the last body that starts before the offset.
  const std::vector<Function>& functions = module.functions;
  auto after = std::upper_bound(functions.begin(), functions.end(), offset,
                                [](uint32_t at, const Function& f) { return at < f.body_offset; });
  if (after == functions.begin()) return std::nullopt;
  const std::vector<Instr>& body = (after - 1)->body;
  auto instr =
      std::lower_bound(body.begin(), body.end(), offset, [](const Instr& i, uint32_t at) { return i.offset < at; });
  if (instr == body.end() || instr->offset != offset) return std::nullopt;
  return module.imported_functions + uint32_t(after - 1 - functions.begin());
}

std::string describe_code_site(const Module& module, uint32_t offset) {
  char at[32];
  std::snprintf(at, sizeof at, "module offset 0x%x", offset);
  const std::optional<uint32_t> function = function_at_offset(module, offset);
  if (!function) return at;
  return "function '" + module.function_name(*function) + "' (function " + std::to_string(*function) + ") at " + at;
}

std::string describe_access(uint64_t address, uint32_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "accessing %u byte%s at address 0x%llx", bytes, bytes == 1 ? "" : "s",
                static_cast<unsigned long long>(address));
  return text;
}

}  // namespace wasmgpu::wasm
