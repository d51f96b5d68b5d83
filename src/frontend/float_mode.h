// How float instructions are compiled (docs/float-modes.md): `exact` gives
// WebAssembly's bits on every Vulkan device, `fast` uses the device's own
// float instructions.
#pragma once

#include <optional>
#include <string_view>

namespace wasmgpu::frontend {

enum class FloatMode : unsigned char { Exact, Fast };

inline std::string_view float_mode_name(FloatMode mode) { return mode == FloatMode::Exact ? "exact" : "fast"; }

inline std::optional<FloatMode> parse_float_mode(std::string_view text) {
  if (text == "exact") return FloatMode::Exact;
  if (text == "fast") return FloatMode::Fast;
  return std::nullopt;
}

}  // namespace wasmgpu::frontend
