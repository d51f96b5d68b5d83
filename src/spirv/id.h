// A SPIR-V result id (of a type, constant, variable, instruction or label).
// It is made from a number only explicitly, and it does not read as a number:
// a count, a width, an offset or a literal cannot be passed where an id is
// expected, nor an id where a number is. Instruction words are built from
// Operands, each an id, a SPIR-V enumerant or a literal made with literal().
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

namespace wasmgpu::spirv {

class Id {
 public:
  constexpr Id() = default;  // 0: no id
  constexpr explicit Id(uint32_t value) : value_(value) {}
  constexpr uint32_t value() const { return value_; }
  // Whether this is an id at all (not the 0 of "no id").
  constexpr explicit operator bool() const { return value_ != 0; }
  friend constexpr bool operator==(Id, Id) = default;
  friend constexpr auto operator<=>(Id, Id) = default;

 private:
  uint32_t value_ = 0;
};

// A scoped enumeration (spirv.hpp11's enumerants are all scoped).
template <typename E>
concept ScopedEnum = std::is_enum_v<E> && !std::is_convertible_v<E, std::underlying_type_t<E>>;

// One operand word of an instruction: an Id, an enumerant of the SPIR-V
// grammar (a storage class, a decoration, a mask), or a literal number,
// which is one only when written literal(n).
class Operand {
 public:
  constexpr Operand(Id id) : word_(id.value()) {}
  template <ScopedEnum E>
  constexpr Operand(E enumerant) : word_(static_cast<uint32_t>(enumerant)) {}
  constexpr uint32_t word() const { return word_; }

 private:
  struct LiteralTag {};
  constexpr Operand(LiteralTag, uint32_t word) : word_(word) {}
  friend constexpr Operand literal(uint32_t value);

  uint32_t word_;
};

// A literal number operand (a count, a width, a member index, a switch
// case, a spec id, a mask combined from several enumerants).
constexpr Operand literal(uint32_t value) { return Operand(Operand::LiteralTag{}, value); }

using Operands = std::vector<Operand>;

}  // namespace wasmgpu::spirv

// Id-keyed tables.
template <>
struct std::hash<wasmgpu::spirv::Id> {
  size_t operator()(wasmgpu::spirv::Id id) const noexcept { return std::hash<uint32_t>()(id.value()); }
};
