// A SPIR-V result id (of a type, constant, variable, instruction or label).
// It is made from a number only explicitly, so that a count, a width, an
// offset or a literal cannot be passed where an id is expected; it reads as
// its number where instruction words are built.
#pragma once

#include <cstdint>

namespace wasmgpu::spirv {

class Id {
 public:
  constexpr Id() = default;  // 0: no id
  constexpr explicit Id(uint32_t value) : value_(value) {}
  constexpr uint32_t value() const { return value_; }
  // Instruction words and the id-keyed tables take ids as numbers.
  constexpr operator uint32_t() const { return value_; }

 private:
  uint32_t value_ = 0;
};

}  // namespace wasmgpu::spirv
