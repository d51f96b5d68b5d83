#include "reflect/wasm_interface.h"

#include "frontend/kernel_signature.h"
#include "spirv/compiler.h"
#include "wasm/kernel_metadata.h"

namespace wasmgpu::reflect {
namespace {

bool unsigned_c_type(const std::string& type) {
  return type.find("unsigned") != std::string::npos || type.rfind("uint", 0) == 0 || type == "size_t" ||
         type == "char32_t" || type == "char16_t" || type == "_Bool" || type == "bool";
}

ScalarType scalar_of(wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I64: return ScalarType::I64;
    case wasm::ValType::F32: return ScalarType::F32;
    case wasm::ValType::F64: return ScalarType::F64;
    default: return ScalarType::I32;
  }
}

uint32_t size_of(ScalarType type) {
  return type == ScalarType::I64 || type == ScalarType::U64 || type == ScalarType::F64 ? 8 : 4;
}

Param from_metadata(const wasm::KernelParam& meta, wasm::ValType type) {
  Param param;
  param.name = meta.name;
  param.element_type = meta.is_pointer() ? meta.pointee : meta.type;
  if (meta.is_pointer()) {
    param.kind = ParamKind::Buffer;
    param.element_size = meta.size;
    param.writable = meta.kind == wasm::KernelParam::Kind::Pointer;
    return param;
  }
  if (meta.is_handle()) {
    // A wasm image handle may be loaded, stored or sampled: StorageImage
    // stands for "an Image" (both accept any Image; the kernel's calls trap
    // on an image without the usage they need).
    param.kind = meta.kind == wasm::KernelParam::Kind::Image ? ParamKind::StorageImage : ParamKind::Sampler;
    param.element_type = meta.type;
    return param;
  }
  param.kind = ParamKind::Scalar;
  if (meta.kind == wasm::KernelParam::Kind::Float) {
    param.scalar = type == wasm::ValType::F64 ? ScalarType::F64 : ScalarType::F32;
  } else {
    const bool is_unsigned = unsigned_c_type(meta.type);
    if (type == wasm::ValType::I64)
      param.scalar = is_unsigned ? ScalarType::U64 : ScalarType::I64;
    else
      param.scalar = is_unsigned ? ScalarType::U32 : ScalarType::I32;
  }
  param.size = size_of(param.scalar);
  param.element_size = meta.size;
  param.writable = false;
  return param;
}

}  // namespace

Result<std::vector<KernelInterface>> wasm_interfaces(const wasm::Module& module) {
  WASMGPU_ASSIGN_OR_RETURN(std::vector<wasm::KernelMetadata> metadata, wasm::read_kernel_metadata(module));
  std::vector<KernelInterface> out;
  for (const wasm::Export& e : module.exports) {
    if (e.kind != wasm::ExternalKind::Func || !frontend::check_kernel_signature(module, e.name).ok()) continue;
    const wasm::FuncType& type = module.function_type(e.index);
    const wasm::KernelMetadata* record = nullptr;
    for (const wasm::KernelMetadata& m : metadata)
      if (m.kernel == e.name) record = &m;
    KernelInterface kernel;
    kernel.name = e.name;
    kernel.source = KernelSource::Wasm;
    // read_kernel_metadata checked the record against the signature, index included.
    for (size_t i = 1; i < type.params.size(); ++i) {
      if (record) {
        kernel.params.push_back(from_metadata(record->params[i], type.params[i]));
        continue;
      }
      Param param;
      param.name = "arg" + std::to_string(i);
      param.kind = ParamKind::Scalar;
      param.scalar = scalar_of(type.params[i]);
      param.size = size_of(param.scalar);
      param.writable = false;
      kernel.params.push_back(std::move(param));
    }
    out.push_back(std::move(kernel));
  }
  return out;
}

}  // namespace wasmgpu::reflect
