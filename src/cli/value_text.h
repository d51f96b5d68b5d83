// wasm values as text, for `call` and `spectest`: parsing by parameter type
// and printing in a form the parser reads back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/call.h"
#include "wasm/module.h"

namespace wasmgpu::cli {

// Parses `text` as a value of `type`. Integers: decimal or 0x hex, with an
// optional sign; the signed and the unsigned range are both accepted. Floats:
// decimal or hex floats (0x1.8p3), inf, nan, nan:0xPAYLOAD, each with an
// optional sign; a decimal is rounded once, to the nearest value of `type`.
std::optional<runtime::Value> parse_value(std::string_view text, wasm::ValType type);

// Integers in signed decimal; floats as the shortest decimal that reads back
// to the same bits, inf, or nan:0xPAYLOAD (signed).
std::string format_value(const runtime::Value& value);

}  // namespace wasmgpu::cli
