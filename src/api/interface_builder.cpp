// KernelInterface of wasm kernels: from each export's signature, refined by
// the wasmgpu.kernels metadata (names, pointers, element types, const).
#include <algorithm>
#include <cctype>

#include "api/impl.h"
#include "wasm/kernel_metadata.h"

namespace wasmgpu::detail {

namespace {

bool is_scalar(wasm::ValType type) {
  return type == wasm::ValType::I32 || type == wasm::ValType::I64 || type == wasm::ValType::F32 ||
         type == wasm::ValType::F64;
}

ScalarType scalar_of(wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I64: return ScalarType::I64;
    case wasm::ValType::F32: return ScalarType::F32;
    case wasm::ValType::F64: return ScalarType::F64;
    default: return ScalarType::I32;
  }
}

// "unsigned", "unsigned int", "uint32_t", "size_t", "unsigned long long" ...
bool is_unsigned_spelling(std::string type) {
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return type.find("unsigned") != std::string::npos || type.rfind("uint", 0) == 0 ||
         type.rfind("const uint", 0) == 0 || type.find("size_t") != std::string::npos ||
         type == "char16_t" || type == "char32_t";
}

Param param_from_metadata(const wasm::KernelParam& meta, wasm::ValType type) {
  Param param;
  param.name = meta.name;
  if (meta.is_pointer()) {
    param.kind = ParamKind::Buffer;
    param.scalar = ScalarType::U32;  // the wasm address
    param.element_type = meta.pointee;
    param.element_size = meta.size;
    param.writable = meta.kind == wasm::KernelParam::Kind::Pointer;
    return param;
  }
  param.kind = ParamKind::Scalar;
  param.element_type = meta.type;
  param.size = meta.size;
  if (meta.kind == wasm::KernelParam::Kind::Float) {
    param.scalar = scalar_of(type);
  } else {
    const bool wide = type == wasm::ValType::I64;
    const bool is_unsigned = is_unsigned_spelling(meta.type);
    param.scalar = wide ? (is_unsigned ? ScalarType::U64 : ScalarType::I64)
                        : (is_unsigned ? ScalarType::U32 : ScalarType::I32);
  }
  param.size = (param.scalar == ScalarType::I64 || param.scalar == ScalarType::U64 ||
                param.scalar == ScalarType::F64) ? 8 : 4;
  return param;
}

}  // namespace

std::vector<KernelInterface> wasm_interfaces(const wasm::Module& module,
                                             std::span<const wasm::KernelMetadata> metadata) {
  std::vector<KernelInterface> out;
  for (const wasm::Export& e : module.exports) {
    if (e.kind != wasm::ExternalKind::Func || e.index < module.imported_functions) continue;
    const wasm::FuncType& type = module.function_type(e.index);
    // A kernel: (i32 index, scalars...) -> ().
    if (type.params.empty() || type.params[0] != wasm::ValType::I32 || !type.results.empty()) continue;
    if (!std::all_of(type.params.begin(), type.params.end(), is_scalar)) continue;
    KernelInterface kernel;
    kernel.name = e.name;
    kernel.source = KernelSource::Wasm;
    const wasm::KernelMetadata* meta = nullptr;
    for (const wasm::KernelMetadata& m : metadata)
      if (m.kernel == e.name) meta = &m;
    for (size_t i = 1; i < type.params.size(); ++i) {
      if (meta && i < meta->params.size()) {
        kernel.params.push_back(param_from_metadata(meta->params[i], type.params[i]));
        continue;
      }
      Param param;
      param.name = "arg" + std::to_string(i);
      param.kind = ParamKind::Scalar;
      param.scalar = scalar_of(type.params[i]);
      param.size = (type.params[i] == wasm::ValType::I64 || type.params[i] == wasm::ValType::F64) ? 8 : 4;
      kernel.params.push_back(param);
    }
    out.push_back(std::move(kernel));
  }
  return out;
}

}  // namespace wasmgpu::detail
