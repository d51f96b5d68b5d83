// A SPIR-V result id (of a type, constant, variable, instruction or label).
// It is made from a number only explicitly, and it does not read as a number:
// a count, a width, an offset or a literal cannot be passed where an id is
// expected, nor an id where a number is. Instruction words are built from
// Operands, each an id, a SPIR-V enumerant or a literal made with literal().
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <vector>

#include <spirv/unified1/spirv.hpp11>

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

// The enumerations of the SPIR-V grammar (spirv.hpp11) whose enumerants
// an instruction holds as literal words. Scope and MemorySemantics are not
// among them: instructions take those as ids of constants, so an enumerant
// of theirs passed as an operand does not compile. Nor does any enumeration
// that is not SPIR-V's (a wasm opcode, a trap kind).
template <typename E>
inline constexpr bool kGrammarEnum = false;
template <>
inline constexpr bool kGrammarEnum<spv::Op> = true;  // OpSpecConstantOp's opcode
template <>
inline constexpr bool kGrammarEnum<spv::Capability> = true;
template <>
inline constexpr bool kGrammarEnum<spv::ExecutionModel> = true;
template <>
inline constexpr bool kGrammarEnum<spv::ExecutionMode> = true;
template <>
inline constexpr bool kGrammarEnum<spv::AddressingModel> = true;
template <>
inline constexpr bool kGrammarEnum<spv::MemoryModel> = true;
template <>
inline constexpr bool kGrammarEnum<spv::StorageClass> = true;
template <>
inline constexpr bool kGrammarEnum<spv::Decoration> = true;
template <>
inline constexpr bool kGrammarEnum<spv::BuiltIn> = true;
template <>
inline constexpr bool kGrammarEnum<spv::Dim> = true;
template <>
inline constexpr bool kGrammarEnum<spv::ImageFormat> = true;
template <>
inline constexpr bool kGrammarEnum<spv::ImageOperandsMask> = true;
template <>
inline constexpr bool kGrammarEnum<spv::MemoryAccessMask> = true;
template <>
inline constexpr bool kGrammarEnum<spv::FunctionControlMask> = true;
template <>
inline constexpr bool kGrammarEnum<spv::SelectionControlMask> = true;
template <>
inline constexpr bool kGrammarEnum<spv::LoopControlMask> = true;
template <>
inline constexpr bool kGrammarEnum<spv::GroupOperation> = true;

template <typename E>
concept GrammarEnum = kGrammarEnum<E>;

// One operand word of an instruction: an Id, an enumerant of the SPIR-V
// grammar (a storage class, a decoration, a mask), or a literal number,
// which is one only when written literal(n).
class Operand {
 public:
  constexpr Operand(Id id) : word_(id.value()) {}
  template <GrammarEnum E>
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
