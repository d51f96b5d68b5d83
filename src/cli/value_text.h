// wasm values as text, for `call` and `spectest`: parsing by parameter type
// and printing in a form the parser reads back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wasm/module.h"
#include "wasmgpu/call.hpp"

namespace wasmgpu::cli {

// Parses `text` as a value of `type`. Integers: decimal or 0x hex, with an
// optional sign; the signed and the unsigned range are both accepted. Floats:
// decimal or hex floats (0x1.8p3), inf, nan, nan:0xPAYLOAD, each with an
// optional sign; a decimal is rounded once, to the nearest value of `type`.
std::optional<Value> parse_value(std::string_view text, wasm::ValType type);

// Integers in signed decimal; floats as the shortest decimal that reads back
// to the same bits, inf, or nan:0xPAYLOAD (signed).
std::string format_value(const Value& value);

// The public API's value of a wasm value type (I32, I64, F32 or F64), and
// back; and the type's wasm name ("i32").
Value wasm_value(wasm::ValType type, uint64_t bits);
wasm::ValType wasm_type(ScalarType type);
const char* type_name(const Value& value);

}  // namespace wasmgpu::cli
