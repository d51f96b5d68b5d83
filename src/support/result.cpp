#include "support/result.h"

#include <cstdio>

namespace wasmgpu {

std::string Error::to_string() const {
  if (!offset) return message;
  char prefix[40];
  std::snprintf(prefix, sizeof prefix, "at byte 0x%llx: ", static_cast<unsigned long long>(*offset));
  return prefix + message;
}

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::Unspecified: return "error";
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Decode: return "decode error";
    case ErrorCode::Validation: return "validation error";
    case ErrorCode::Compile: return "compile error";
    case ErrorCode::Trap: return "trap";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::DeviceLost: return "device lost";
    case ErrorCode::Vulkan: return "Vulkan error";
    case ErrorCode::Io: return "I/O error";
    case ErrorCode::Internal: return "internal error";
  }
  return "?";
}

Error make_error(ErrorCode code, std::string message) {
  Error error;
  error.message = std::move(message);
  error.code = code;
  return error;
}

Error make_error_at(ErrorCode code, uint64_t offset, std::string message) {
  Error error = make_error(code, std::move(message));
  error.offset = offset;
  return error;
}

}  // namespace wasmgpu
