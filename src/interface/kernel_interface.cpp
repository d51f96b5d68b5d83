// Names of the interface enums, shared by `wasmgpu reflect`, bindgen and
// error messages.
#include "interface/kernel_interface.h"

namespace wasmgpu {

const char* to_string(ScalarType type) {
  switch (type) {
    case ScalarType::I32: return "i32";
    case ScalarType::U32: return "u32";
    case ScalarType::I64: return "i64";
    case ScalarType::U64: return "u64";
    case ScalarType::F32: return "f32";
    case ScalarType::F64: return "f64";
  }
  return "?";
}

const char* to_string(ParamKind kind) {
  switch (kind) {
    case ParamKind::Scalar: return "scalar";
    case ParamKind::Bytes: return "bytes";
    case ParamKind::Buffer: return "buffer";
    case ParamKind::UniformBuffer: return "uniform buffer";
    case ParamKind::StorageImage: return "storage image";
    case ParamKind::SampledImage: return "sampled image";
    case ParamKind::Sampler: return "sampler";
    case ParamKind::CombinedImageSampler: return "combined image sampler";
  }
  return "?";
}

}  // namespace wasmgpu
