// KernelInterface as JSON: what `wasmgpu reflect` prints (its --help gives the
// schema), and what tools read.
#pragma once

#include "interface/kernel_interface.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace wasmgpu::reflect {

nlohmann::ordered_json to_json(const StructLayout& layout);
nlohmann::ordered_json to_json(const Param& param);
nlohmann::ordered_json to_json(const SpecConstant& spec);
nlohmann::ordered_json to_json(const KernelInterface& kernel);

// A spec constant's default as a JSON number of its type (f32 bits as a
// float, i32 bits as a signed integer ...).
nlohmann::ordered_json spec_value(ScalarType type, uint64_t bits);

}  // namespace wasmgpu::reflect
