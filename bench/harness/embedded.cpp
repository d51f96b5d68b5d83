#include "harness/embedded.h"

#include <stdexcept>
#include <string>

namespace wasmgpu::bench {

std::span<const uint8_t> embedded(std::string_view name) {
  std::span<const uint8_t> bytes = embedded_file(name);
  // Every embedded file has bytes: an empty span means the name is wrong.
  if (bytes.empty()) throw std::runtime_error("no embedded bench file '" + std::string(name) + "'");
  return bytes;
}

}  // namespace wasmgpu::bench
