#include "wasm/module.h"

#include <algorithm>
#include <cassert>

namespace wasmgpu::wasm {

const char* to_string(ValType type) {
  switch (type) {
    case ValType::I32: return "i32";
    case ValType::I64: return "i64";
    case ValType::F32: return "f32";
    case ValType::F64: return "f64";
    case ValType::V128: return "v128";
    case ValType::FuncRef: return "funcref";
    case ValType::ExternRef: return "externref";
  }
  return "?";
}

const char* to_string(ExternalKind kind) {
  switch (kind) {
    case ExternalKind::Func: return "func";
    case ExternalKind::Table: return "table";
    case ExternalKind::Memory: return "memory";
    case ExternalKind::Global: return "global";
  }
  return "?";
}

namespace {

// The n-th import of `kind`, or nullptr.
const Import* nth_import(const std::vector<Import>& imports, ExternalKind kind, uint32_t n) {
  for (const Import& import : imports) {
    if (import.kind != kind) continue;
    if (n == 0) return &import;
    --n;
  }
  return nullptr;
}

std::string lookup_name(const std::vector<std::pair<uint32_t, std::string>>& names, uint32_t index) {
  auto it = std::lower_bound(names.begin(), names.end(), index,
                             [](const auto& entry, uint32_t i) { return entry.first < i; });
  if (it != names.end() && it->first == index) return it->second;
  return {};
}

}  // namespace

const Import* Module::imported_function(uint32_t index) const {
  if (index >= imported_functions) return nullptr;
  return nth_import(imports, ExternalKind::Func, index);
}

const Import* Module::imported_global(uint32_t index) const {
  if (index >= imported_globals) return nullptr;
  return nth_import(imports, ExternalKind::Global, index);
}

const FuncType& Module::function_type(uint32_t index) const {
  if (const Import* import = imported_function(index)) return types.at(import->func_type);
  return types.at(functions.at(index - imported_functions).type_index);
}

std::pair<size_t, size_t> Module::block_arity(const BlockType& block) const {
  switch (block.kind) {
    case BlockType::Kind::Empty: return {0, 0};
    case BlockType::Kind::Value: return {0, 1};
    case BlockType::Kind::TypeIndex: {
      const FuncType& t = types.at(block.type_index);
      return {t.params.size(), t.results.size()};
    }
  }
  return {0, 0};
}

GlobalType Module::global_type(uint32_t index) const {
  if (const Import* import = imported_global(index)) return import->global;
  return globals.at(index - imported_globals).type;
}

std::string Module::function_name(uint32_t index) const {
  std::string name = lookup_name(names.function_names, index);
  if (!name.empty()) return name;
  for (const Export& e : exports)
    if (e.kind == ExternalKind::Func && e.index == index) return e.name;
  return "func[" + std::to_string(index) + "]";
}

std::string Module::global_name(uint32_t index) const { return lookup_name(names.global_names, index); }

const Export* Module::find_export(std::string_view name, ExternalKind kind) const {
  for (const Export& e : exports)
    if (e.kind == kind && e.name == name) return &e;
  return nullptr;
}

}  // namespace wasmgpu::wasm
