#include "cli/value_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace wasmgpu::cli {
namespace {

bool parse_magnitude(std::string_view s, uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
  std::string digits;
  for (char c : s)
    if (c != '_') digits += c;  // wat-style digit separators
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out, base);
  return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size();
}

std::optional<uint64_t> parse_int(std::string_view s, int bits) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) negative = s[0] == '-', s.remove_prefix(1);
  uint64_t magnitude = 0;
  if (!parse_magnitude(s, magnitude)) return std::nullopt;
  const uint64_t unsigned_max = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  const uint64_t signed_min_magnitude = uint64_t(1) << (bits - 1);
  if (negative) {
    if (magnitude > signed_min_magnitude) return std::nullopt;
    return (uint64_t(0) - magnitude) & unsigned_max;
  }
  if (magnitude > unsigned_max) return std::nullopt;
  return magnitude;
}

// Float bits from text; `mantissa` is 23 or 52.
std::optional<uint64_t> parse_float_bits(std::string_view s, bool is_f32) {
  const int mantissa = is_f32 ? 23 : 52;
  const uint64_t sign_bit = uint64_t(1) << (is_f32 ? 31 : 63);
  const uint64_t exponent_mask = (is_f32 ? uint64_t(0xFF) : uint64_t(0x7FF)) << mantissa;
  bool negative = false;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) negative = body[0] == '-', body.remove_prefix(1);
  std::string lower;
  for (char c : body) lower += char(std::tolower(static_cast<unsigned char>(c)));
  const uint64_t sign = negative ? sign_bit : 0;
  if (lower == "inf" || lower == "infinity") return sign | exponent_mask;
  if (lower == "nan") return sign | exponent_mask | (uint64_t(1) << (mantissa - 1));
  if (lower.rfind("nan:", 0) == 0) {
    uint64_t payload = 0;
    std::string_view p = std::string_view(lower).substr(4);
    if (p.size() < 3 || p.substr(0, 2) != "0x" || !parse_magnitude(p, payload)) return std::nullopt;
    if (payload == 0 || payload >= (uint64_t(1) << mantissa)) return std::nullopt;
    return sign | exponent_mask | payload;
  }
  if (lower.empty() || lower.find_first_not_of("0123456789abcdefxp.+-_") != std::string::npos) return std::nullopt;
  std::string text(s);
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  char* end = nullptr;
  if (is_f32) {
    const float value = std::strtof(text.c_str(), &end);
    if (*end != '\0') return std::nullopt;
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return bits;
  }
  const double value = std::strtod(text.c_str(), &end);
  if (*end != '\0') return std::nullopt;
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}

template <class F, class U>
std::string format_float(U bits, int mantissa) {
  F value;
  std::memcpy(&value, &bits, sizeof value);
  const std::string sign = std::signbit(value) ? "-" : "";
  if (std::isnan(value)) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "nan:0x%llx",
                  static_cast<unsigned long long>(bits & ((U(1) << mantissa) - 1)));
    return sign + buffer;
  }
  if (std::isinf(value)) return sign + "inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

}  // namespace

std::optional<Value> parse_value(std::string_view text, wasm::ValType type) {
  switch (type) {
    case wasm::ValType::I32:
      if (auto v = parse_int(text, 32)) return wasm_value(type, *v);
      return std::nullopt;
    case wasm::ValType::I64:
      if (auto v = parse_int(text, 64)) return wasm_value(type, *v);
      return std::nullopt;
    case wasm::ValType::F32:
      if (auto v = parse_float_bits(text, true)) return wasm_value(type, *v);
      return std::nullopt;
    case wasm::ValType::F64:
      if (auto v = parse_float_bits(text, false)) return wasm_value(type, *v);
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::string format_value(const Value& value) {
  switch (wasm_type(value.type)) {
    case wasm::ValType::I32: return std::to_string(int32_t(uint32_t(value.bits)));
    case wasm::ValType::I64: return std::to_string(int64_t(value.bits));
    case wasm::ValType::F32: return format_float<float, uint32_t>(uint32_t(value.bits), 23);
    case wasm::ValType::F64: return format_float<double, uint64_t>(value.bits, 52);
    default: return "?";
  }
}

Value wasm_value(wasm::ValType type, uint64_t bits) {
  switch (type) {
    case wasm::ValType::I64: return Value{ScalarType::I64, bits};
    case wasm::ValType::F32: return Value{ScalarType::F32, bits};
    case wasm::ValType::F64: return Value{ScalarType::F64, bits};
    default: return Value{ScalarType::I32, bits};
  }
}

wasm::ValType wasm_type(ScalarType type) {
  switch (type) {
    case ScalarType::I64:
    case ScalarType::U64: return wasm::ValType::I64;
    case ScalarType::F32: return wasm::ValType::F32;
    case ScalarType::F64: return wasm::ValType::F64;
    default: return wasm::ValType::I32;
  }
}

const char* type_name(const Value& value) { return wasm::to_string(wasm_type(value.type)); }

}  // namespace wasmgpu::cli
