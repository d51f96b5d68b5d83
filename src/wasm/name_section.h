// Parsing of the `name` custom section (with the extended-name-section
// subsections for globals and data segments).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "wasm/module.h"

namespace wasmgpu::wasm {

// The names in a `name` section's contents (after the section name), or
// nullopt if they are malformed: custom sections are not validated, so a bad
// name section is ignored rather than rejecting the module.
std::optional<NameSection> parse_name_section(std::span<const uint8_t> contents);

}  // namespace wasmgpu::wasm
