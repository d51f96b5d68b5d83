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
  switch (error.code) {
    case ErrorCode::Unspecified: return fallback;
    case ErrorCode::InvalidArgument: return ErrorKind::InvalidArgument;
    case ErrorCode::NotFound: return ErrorKind::NotFound;
    case ErrorCode::Unsupported: return ErrorKind::Unsupported;
    case ErrorCode::Decode:
    case ErrorCode::Validation:
    case ErrorCode::Compile: return ErrorKind::Compile;
    case ErrorCode::Trap: return ErrorKind::Trap;
    case ErrorCode::Timeout: return ErrorKind::Timeout;
    case ErrorCode::DeviceLost: return ErrorKind::DeviceLost;
    case ErrorCode::Vulkan: return ErrorKind::Vulkan;
    case ErrorCode::Io: return ErrorKind::Io;
    // wasmgpu's own fault, which the public kinds do not name: the failing
    // operation's kind, with the message saying what went wrong.
    case ErrorCode::Internal: return fallback;
  }
  return fallback;
}

}  // namespace detail
}  // namespace wasmgpu
