// The names of the public API's enumerations, and the conversion of internal
// errors into exceptions.
#include <string>

#include "api/impl.h"

namespace wasmgpu {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidArgument: return "invalid argument";
    case ErrorKind::BufferTooSmall: return "buffer too small";
    case ErrorKind::WrongDevice: return "wrong device";
    case ErrorKind::UseAfterMove: return "use after move";
    case ErrorKind::NotFound: return "not found";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Compile: return "compile error";
    case ErrorKind::Trap: return "trap";
    case ErrorKind::Timeout: return "timeout";
    case ErrorKind::DeviceLost: return "device lost";
    case ErrorKind::Vulkan: return "Vulkan error";
    case ErrorKind::Io: return "I/O error";
  }
  return "?";
}

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

namespace detail {

void raise(ErrorKind kind, const std::string& message) { throw Exception(kind, message); }
void raise(ErrorKind kind, const Error& error) { raise(kind, error.to_string()); }

ErrorKind classify(const Error& error, ErrorKind fallback) {
  const std::string& text = error.message;
  if (text.find("VK_ERROR_DEVICE_LOST") != std::string::npos || text.find("is lost (") != std::string::npos)
    return ErrorKind::DeviceLost;
  if (text.find("VK_ERROR_") != std::string::npos) return ErrorKind::Vulkan;
  return fallback;
}

}  // namespace detail
}  // namespace wasmgpu
