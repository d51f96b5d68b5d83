#include "spirv/id.h"

#include <cstdint>
#include <type_traits>

#include <gtest/gtest.h>

#include "spirv/module_builder.h"

namespace wasmgpu::spirv {
namespace {

// A number becomes an id only when asked to: counts, widths and literals do
// not slip into id parameters.
static_assert(!std::is_convertible_v<uint32_t, Id>);
static_assert(!std::is_convertible_v<int, Id>);
static_assert(std::is_constructible_v<Id, uint32_t>);
// Nor does an id read as a number, implicitly or by a cast (only value()
// gives its number).
static_assert(!std::is_convertible_v<Id, uint32_t>);
static_assert(!std::is_constructible_v<uint32_t, Id>);
static_assert(!std::is_convertible_v<Id, uint64_t>);
// An instruction word is an id, an enumerant of the grammar or a number
// written literal(n); a bare number is none of them.
static_assert(std::is_convertible_v<Id, Operand>);
static_assert(std::is_convertible_v<spv::StorageClass, Operand>);
static_assert(std::is_convertible_v<spv::Decoration, Operand>);
static_assert(std::is_same_v<decltype(literal(3)), Operand>);
// Scope and MemorySemantics operands are ids of constants, so their
// enumerants are not operands; nor is an enumerant that is not SPIR-V's.
enum class NotSpirv : uint32_t { Value };
static_assert(std::is_convertible_v<spv::MemoryAccessMask, Operand>);
static_assert(!std::is_convertible_v<spv::Scope, Operand>);
static_assert(!std::is_convertible_v<spv::MemorySemanticsMask, Operand>);
static_assert(!std::is_convertible_v<NotSpirv, Operand>);
static_assert(!std::is_convertible_v<uint32_t, Operand>);
static_assert(!std::is_constructible_v<Operand, uint32_t>);
static_assert(!std::is_constructible_v<Operand, int>);
// The builder's signatures that mix ids with numbers take the ids typed:
// each concept says whether the call compiles with an argument of type T
// where the id goes.
template <typename T>
concept VectorOf = requires(ModuleBuilder& b, T component) { b.vector_type(component, 4u); };
template <typename T>
concept ArrayWithLength = requires(ModuleBuilder& b, Id element, T length) { b.array_type(element, length); };
template <typename T>
concept MemberDecorationOf =
    requires(ModuleBuilder& b, T type) { b.member_decorate(type, 0u, spv::Decoration::Offset); };
template <typename T>
concept ImageOf = requires(ModuleBuilder& b, T sampled) { b.image_type(sampled, spv::Dim::Dim2D, 1u); };
template <typename T>
concept AlignedLoadFrom = requires(FunctionBuilder& f, Id type, T pointer) { f.load_aligned(type, pointer, 4u); };
template <typename T>
concept AlignedStoreTo = requires(FunctionBuilder& f, T pointer, Id value) { f.store_aligned(pointer, value, 4u); };
template <typename T>
concept PointerTo = requires(ModuleBuilder& b, T pointee) { b.pointer_type(spv::StorageClass::Function, pointee); };
template <typename T>
concept NullOf = requires(ModuleBuilder& b, T type) { b.const_null(type); };
template <typename T>
concept RuntimeArrayOf = requires(ModuleBuilder& b, T element) { b.runtime_array_type(element); };
template <typename T>
concept VariableOf = requires(FunctionBuilder& f, T type) { f.variable(type); };
static_assert(PointerTo<Id> && !PointerTo<uint32_t>);
static_assert(NullOf<Id> && !NullOf<uint32_t>);
static_assert(RuntimeArrayOf<Id> && !RuntimeArrayOf<uint32_t>);
static_assert(VariableOf<Id> && !VariableOf<uint32_t>);
static_assert(VectorOf<Id> && !VectorOf<uint32_t>);
static_assert(ArrayWithLength<Id> && !ArrayWithLength<uint32_t>);
static_assert(MemberDecorationOf<Id> && !MemberDecorationOf<uint32_t>);
static_assert(ImageOf<Id> && !ImageOf<uint32_t>);
static_assert(AlignedLoadFrom<Id> && !AlignedLoadFrom<uint32_t>);
static_assert(AlignedStoreTo<Id> && !AlignedStoreTo<uint32_t>);

TEST(Id, CarriesItsNumberIntoInstructionWords) {
  ModuleBuilder b;
  const Id u32 = b.uint_type(32);
  const Id vector = b.vector_type(u32, 3);
  EXPECT_NE(u32.value(), 0u);
  EXPECT_NE(vector.value(), u32.value());
  EXPECT_EQ(b.vector_type(u32, 3), vector);  // deduplicated by the words it is built from
  Words words;
  append_instruction(words, spv::Op::OpTypeVector, {vector, u32, literal(3)});
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[0], (4u << 16) | uint32_t(spv::Op::OpTypeVector));
  EXPECT_EQ(words[1], vector.value());
  EXPECT_EQ(words[2], u32.value());
  EXPECT_EQ(words[3], 3u);
  EXPECT_EQ(Id().value(), 0u);
  EXPECT_FALSE(Id());  // the 0 of "no id"
  EXPECT_TRUE(u32);
}

}  // namespace
}  // namespace wasmgpu::spirv
