// The device probe's scalar cases: float rounding, subnormals, rounding to
// integral, conversions and integer edge cases, each with wasm's result
// computed by the host's IEEE arithmetic (built with -ffp-contract=off).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wasm/module.h"

namespace wasmgpu::probe {

// Which raw shader runs a case (raw_*.comp).
enum class Shader { Float32, Float64, Int32, Int64 };

struct ScalarCase {
  std::string property;  // "f64_trunc", "i32_shift", ...
  Shader shader = Shader::Float32;
  uint32_t op = 0;          // probe_ops.h
  uint64_t a = 0, b = 0;    // operand bits (b unused by unary ops)
  uint64_t expected = 0;    // wasm's result bits
  bool expect_nan = false;  // any NaN is right (wasm gives an arithmetic NaN)
  // Subnormal cases: the result of a device that flushes subnormal operands
  // and results to zero (what a substituted wrong result looks like).
  uint64_t flushed = 0;
  std::string text;  // "trunc(4503599627370495.5)"
};

// Every case, in the order the report lists properties.
std::vector<ScalarCase> scalar_cases();

// The export of probe_ops.wat that computes the case ("f64.trunc").
std::string export_name(const ScalarCase& c);
// Its parameter types and result type.
std::vector<wasm::ValType> param_types(const ScalarCase& c);
wasm::ValType result_type(const ScalarCase& c);
// The bits of a result of `type` that count (the low 32 for i32 and f32).
uint64_t result_mask(wasm::ValType type);
// A result's bits as text, by type ("4503599627370495.5", "-7").
std::string value_text(wasm::ValType type, uint64_t bits);
// True when `bits` is the right result of `c`.
bool matches(const ScalarCase& c, uint64_t bits);
// The wrong result WASMGPU_PROBE_FORCE substitutes for a raw one: what the
// bad drivers gave -- the input for rounding to integral, the flushed result
// for subnormals -- and otherwise the right result with its lowest bit flipped.
uint64_t forced_wrong_result(const ScalarCase& c);
bool is_subnormal_property(std::string_view property);

}  // namespace wasmgpu::probe
