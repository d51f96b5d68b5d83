#include "support/result.h"

#include <cstdio>

namespace wasmgpu {

std::string Error::to_string() const {
  if (!offset) return message;
  char prefix[40];
  std::snprintf(prefix, sizeof prefix, "at byte 0x%llx: ", static_cast<unsigned long long>(*offset));
  return prefix + message;
}

Error make_error(std::string message) { return Error{std::move(message), std::nullopt}; }

Error make_error_at(uint64_t offset, std::string message) {
  return Error{std::move(message), offset};
}

}  // namespace wasmgpu
