#include "runtime/call.h"

#include <cmath>
#include <cstdio>

namespace wasmgpu::runtime {

namespace {

template <class F, class U>
std::string float_text(U bits, int mantissa_bits) {
  F value;
  std::memcpy(&value, &bits, sizeof value);
  const U payload = bits & ((U(1) << mantissa_bits) - 1);
  if (std::isnan(value)) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%snan:0x%llx", std::signbit(value) ? "-" : "",
                  static_cast<unsigned long long>(payload));
    return buffer;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", sizeof(F) == 4 ? 9 : 17, double(value));
  std::string text = buffer;
  if (std::isfinite(value)) {
    std::snprintf(buffer, sizeof buffer, " (%a)", double(value));
    text += buffer;
  }
  return text;
}

}  // namespace

std::string to_string(const Value& value) {
  switch (value.type) {
    case wasm::ValType::I32: return std::to_string(int32_t(uint32_t(value.bits)));
    case wasm::ValType::I64: return std::to_string(int64_t(value.bits));
    case wasm::ValType::F32: return float_text<float, uint32_t>(uint32_t(value.bits), 23);
    case wasm::ValType::F64: return float_text<double, uint64_t>(value.bits, 52);
    default: return "?";
  }
}

}  // namespace wasmgpu::runtime
