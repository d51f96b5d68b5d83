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

// to_string(ScalarType) and to_string(ParamKind) live in src/reflect/interface.cpp,
// below the api layer, for the runtime and the CLI too.

namespace detail {

void raise(ErrorKind kind, const std::string& message) { throw Exception(kind, message); }
void raise(ErrorKind kind, const Error& error) { raise(kind, error.to_string()); }

ErrorKind classify(const Error& error, ErrorKind fallback) {
  const std::string& text = error.message;
  if (text.find("VK_ERROR_DEVICE_LOST") != std::string::npos || text.find("is lost (") != std::string::npos)
    return ErrorKind::DeviceLost;
  if (text.find("VK_ERROR_") != std::string::npos) return ErrorKind::Vulkan;
  // A pipeline warm-up past the compile timeout (runtime/pipeline_warmup.h).
  if (text.find("compiling the pipeline took longer than") != std::string::npos) return ErrorKind::Timeout;
  return fallback;
}

}  // namespace detail
}  // namespace wasmgpu
