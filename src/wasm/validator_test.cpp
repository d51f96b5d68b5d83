#include "wasm/validator.h"

#include <optional>

#include <gtest/gtest.h>

#include "wasm/decoder.h"
#include "wasm/test_module_builder.h"

namespace wasmgpu::wasm {
namespace {

using namespace testing;  // NOLINT: the builder helpers

// The validation error of a module (which must decode), or "ok".
std::string validation_error(const Bytes& bytes) {
  auto module = decode(bytes);
  if (!module.ok()) return "malformed: " + module.error().message;
  Status status = validate(*module);
  return status.ok() ? "ok" : status.error().message;
}

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

Bytes memory_section() { return section(5, {0x01, 0x00, 0x01}); }

Bytes function_with_memory(const Bytes& code) {
  return module_of(
      {type_section_void(), function_section(1), memory_section(), code_section({body(concat({Bytes{0x00}, code}))})});
}

TEST(Validator, AcceptsSimpleArithmetic) {
  // i32.const 1; i32.const 2; i32.add
  EXPECT_EQ(validation_error(single_function_module({0x41, 0x01, 0x41, 0x02, 0x6A, 0x0B}, true)), "ok");
}

TEST(Validator, TypeMismatchNamesTheInstructionOffset) {
  // i32.const 1; i64.const 2; i32.add
  Bytes bytes = single_function_module({0x41, 0x01, 0x42, 0x02, 0x6A, 0x0B}, true);
  auto module = decode(bytes);
  ASSERT_TRUE(module.ok());
  Status status = validate(*module);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(starts_with(status.error().message, "type mismatch")) << status.error().message;
  EXPECT_EQ(status.error().offset, module->functions[0].body[2].offset);
  EXPECT_EQ(status.error().code, ErrorCode::Validation);
}

TEST(Validator, ResultArityAtEnd) {
  EXPECT_TRUE(starts_with(validation_error(single_function_module({0x0B}, true)), "type mismatch"));
  EXPECT_TRUE(starts_with(validation_error(single_function_module({0x41, 0x01, 0x0B})), "type mismatch"));
}

TEST(Validator, UnreachableMakesTheStackPolymorphic) {
  // unreachable; i32.add  -> fine, yields i32
  EXPECT_EQ(validation_error(single_function_module({0x00, 0x6A, 0x0B}, true)), "ok");
  // unreachable; i64.const 0; i32.add  -> still a mismatch
  EXPECT_TRUE(
      starts_with(validation_error(single_function_module({0x00, 0x42, 0x00, 0x6A, 0x0B}, true)), "type mismatch"));
  // br 0 then garbage typed as anything
  EXPECT_EQ(validation_error(single_function_module({0x0C, 0x00, 0x1A, 0x0B})), "ok");
}

TEST(Validator, Labels) {
  EXPECT_TRUE(starts_with(validation_error(single_function_module({0x0C, 0x01, 0x0B})), "unknown label"));
  // block (result i32) br 0 end: br needs an i32
  EXPECT_TRUE(starts_with(validation_error(single_function_module({0x02, 0x7F, 0x0C, 0x00, 0x0B, 0x1A, 0x0B})),
                          "type mismatch"));
  // loop (result i32) br 0 end: a loop's label takes its parameters (none)
  EXPECT_EQ(validation_error(single_function_module({0x03, 0x7F, 0x0C, 0x00, 0x0B, 0x1A, 0x0B})), "ok");
  // br_table with targets of different arity: block (result i32) block i32.const 0 br_table 0 1 end
  Bytes mixed = {0x02, 0x7F, 0x02, 0x40, 0x41, 0x00, 0x0E, 0x01, 0x00, 0x01, 0x0B, 0x41, 0x00, 0x0B, 0x1A, 0x0B};
  EXPECT_TRUE(starts_with(validation_error(single_function_module(mixed)), "type mismatch"));
}

TEST(Validator, IfWithoutElseMustNotProduceValues) {
  // i32.const 1; if (result i32) i32.const 2 end; drop
  EXPECT_TRUE(
      starts_with(validation_error(single_function_module({0x41, 0x01, 0x04, 0x7F, 0x41, 0x02, 0x0B, 0x1A, 0x0B})),
                  "type mismatch"));
  // ... with an else it is fine.
  EXPECT_EQ(validation_error(
                single_function_module({0x41, 0x01, 0x04, 0x7F, 0x41, 0x02, 0x05, 0x41, 0x03, 0x0B, 0x1A, 0x0B})),
            "ok");
}

TEST(Validator, MultiValueBlocks) {
  // Types: 0 = [] -> [], 1 = [i32] -> [i32 i32]
  Bytes types = section(1, {0x02, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7F, 0x02, 0x7F, 0x7F});
  // i32.const 1; block (type 1) i32.const 2 end; drop; drop
  Bytes code = {0x00, 0x41, 0x01, 0x02, 0x01, 0x41, 0x02, 0x0B, 0x1A, 0x1A, 0x0B};
  EXPECT_EQ(validation_error(module_of({types, function_section(1), code_section({body(code)})})), "ok");
  // Unknown block type index.
  Bytes unknown = {0x00, 0x02, 0x05, 0x0B, 0x0B};
  EXPECT_TRUE(starts_with(validation_error(module_of({types, function_section(1), code_section({body(unknown)})})),
                          "unknown type"));
}

TEST(Validator, SelectRules) {
  // untyped select on i32: ok
  EXPECT_EQ(validation_error(single_function_module({0x41, 1, 0x41, 2, 0x41, 0, 0x1B, 0x0B}, true)), "ok");
  // untyped select on funcref: type mismatch
  EXPECT_TRUE(starts_with(validation_error(single_function_module({0xD0, 0x70, 0xD0, 0x70, 0x41, 0, 0x1B, 0x1A, 0x0B})),
                          "type mismatch"));
  // typed select on funcref: ok
  EXPECT_EQ(validation_error(single_function_module({0xD0, 0x70, 0xD0, 0x70, 0x41, 0, 0x1C, 0x01, 0x70, 0x1A, 0x0B})),
            "ok");
  // typed select with two types: invalid result arity
  EXPECT_EQ(validation_error(single_function_module({0x41, 1, 0x41, 2, 0x41, 0, 0x1C, 0x02, 0x7F, 0x7F, 0x0B})),
            "invalid result arity");
}

TEST(Validator, LocalsAndGlobals) {
  EXPECT_TRUE(starts_with(validation_error(single_function_module({0x20, 0x00, 0x1A, 0x0B})), "unknown local"));
  // Immutable global written.
  Bytes globals = section(6, {0x01, 0x7F, 0x00, 0x41, 0x00, 0x0B});
  Bytes code = {0x00, 0x41, 0x01, 0x24, 0x00, 0x0B};
  EXPECT_EQ(
      validation_error(module_of({type_section_void(), function_section(1), globals, code_section({body(code)})})),
      "global is immutable");
}

TEST(Validator, ConstantExpressions) {
  // Global initialised by i32.add: not constant.
  Bytes not_constant = section(6, {0x01, 0x7F, 0x00, 0x41, 0x01, 0x41, 0x02, 0x6A, 0x0B});
  EXPECT_EQ(validation_error(module_of({not_constant})), "constant expression required");
  // Wrong type.
  Bytes wrong_type = section(6, {0x01, 0x7F, 0x00, 0x42, 0x01, 0x0B});
  EXPECT_EQ(validation_error(module_of({wrong_type})), "type mismatch");
  // global.get of a defined global: only imported ones are in scope.
  Bytes chained = section(6, {0x02, 0x7F, 0x00, 0x41, 0x01, 0x0B, 0x7F, 0x00, 0x23, 0x00, 0x0B});
  EXPECT_TRUE(starts_with(validation_error(module_of({chained})), "unknown global"));
  // global.get of an imported mutable global: not constant.
  Bytes import = section(2, concat({Bytes{0x01}, name("m"), name("g"), Bytes{0x03, 0x7F, 0x01}}));
  Bytes from_import = section(6, {0x01, 0x7F, 0x00, 0x23, 0x00, 0x0B});
  EXPECT_EQ(validation_error(module_of({import, from_import})), "constant expression required");
}

TEST(Validator, UndeclaredFunctionReference) {
  // ref.func 0 in a body, function 0 not declared anywhere.
  EXPECT_EQ(validation_error(single_function_module({0xD2, 0x00, 0x1A, 0x0B})), "undeclared function reference");
  // Declared by an export: fine.
  Bytes exports = section(7, concat({Bytes{0x01}, name("f"), Bytes{0x00, 0x00}}));
  EXPECT_EQ(validation_error(module_of({type_section_void(), function_section(1), exports,
                                        code_section({body({0x00, 0xD2, 0x00, 0x1A, 0x0B})})})),
            "ok");
}

TEST(Validator, MemoryRules) {
  // i32.load without a memory.
  EXPECT_TRUE(
      starts_with(validation_error(single_function_module({0x41, 0, 0x28, 0x02, 0x00, 0x1A, 0x0B})), "unknown memory"));
  // Alignment larger than natural.
  EXPECT_EQ(validation_error(function_with_memory({0x41, 0, 0x28, 0x03, 0x00, 0x1A, 0x0B})),
            "alignment must not be larger than natural");
  EXPECT_EQ(validation_error(function_with_memory({0x41, 0, 0x28, 0x02, 0x00, 0x1A, 0x0B})), "ok");
  // Memory limits.
  EXPECT_EQ(validation_error(module_of({section(5, {0x01, 0x00, 0x81, 0x80, 0x04})})),
            "memory size must be at most 65536 pages (4GiB)");
  EXPECT_EQ(validation_error(module_of({section(5, {0x01, 0x01, 0x02, 0x01})})),
            "size minimum must not be greater than maximum");
  // Several memories are valid (multi-memory, WebAssembly 3.0).
  EXPECT_EQ(validation_error(module_of({section(5, {0x02, 0x00, 0x01, 0x00, 0x01})})), "ok");
}

// Two one-page memories and one void function of `code`; a data segment for
// memory `data_memory` when given.
Bytes two_memories(const Bytes& code, std::optional<uint8_t> data_memory = std::nullopt) {
  Bytes data = data_memory ? section(11, {0x01, 0x02, *data_memory, 0x41, 0x00, 0x0B, 0x01, 0x2A}) : Bytes{};
  return module_of({type_section_void(), function_section(1), section(5, {0x02, 0x00, 0x01, 0x00, 0x01}),
                    code_section({body(concat({Bytes{0x00}, code}))}), data});
}

TEST(Validator, MultiMemoryIndicesMustNameAMemory) {
  // i32.const 0; i32.load memory 1 / memory 2; drop
  EXPECT_EQ(validation_error(two_memories({0x41, 0x00, 0x28, 0x42, 0x01, 0x00, 0x1A, 0x0B})), "ok");
  EXPECT_EQ(validation_error(two_memories({0x41, 0x00, 0x28, 0x42, 0x02, 0x00, 0x1A, 0x0B})), "unknown memory 2");
  // The alignment is checked as for memory 0: align 3 on a 4-byte load.
  EXPECT_EQ(validation_error(two_memories({0x41, 0x00, 0x28, 0x43, 0x01, 0x00, 0x1A, 0x0B})),
            "alignment must not be larger than natural");
  // i32.const 0; i32.const 0; i32.store memory 1 / 3
  EXPECT_EQ(validation_error(two_memories({0x41, 0x00, 0x41, 0x00, 0x36, 0x42, 0x01, 0x00, 0x0B})), "ok");
  EXPECT_EQ(validation_error(two_memories({0x41, 0x00, 0x41, 0x00, 0x36, 0x42, 0x03, 0x00, 0x0B})), "unknown memory 3");
  // memory.size 1 / 2; drop
  EXPECT_EQ(validation_error(two_memories({0x3F, 0x01, 0x1A, 0x0B})), "ok");
  EXPECT_EQ(validation_error(two_memories({0x3F, 0x02, 0x1A, 0x0B})), "unknown memory 2");
  // i32.const 0; memory.grow 2; drop
  EXPECT_EQ(validation_error(two_memories({0x41, 0x00, 0x40, 0x02, 0x1A, 0x0B})), "unknown memory 2");
  // i32.const 0 x3; memory.copy 1 0 / 0 2 (the source checked too)
  const Bytes three_zeros = {0x41, 0x00, 0x41, 0x00, 0x41, 0x00};
  EXPECT_EQ(validation_error(two_memories(concat({three_zeros, Bytes{0xFC, 0x0A, 0x01, 0x00, 0x0B}}))), "ok");
  EXPECT_EQ(validation_error(two_memories(concat({three_zeros, Bytes{0xFC, 0x0A, 0x00, 0x02, 0x0B}}))),
            "unknown memory 2");
  // memory.fill 2
  EXPECT_EQ(validation_error(two_memories(concat({three_zeros, Bytes{0xFC, 0x0B, 0x02, 0x0B}}))), "unknown memory 2");
  // An active data segment for memory 1 / 2.
  EXPECT_EQ(validation_error(two_memories({0x0B}, 1)), "ok");
  EXPECT_EQ(validation_error(two_memories({0x0B}, 2)), "unknown memory 2");
}

TEST(Validator, SimdLaneBounds) {
  Bytes v128_zero = {0xFD, 0x0C, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  // i32x4.extract_lane 3: ok; 4: invalid.
  EXPECT_EQ(validation_error(single_function_module(concat({v128_zero, Bytes{0xFD, 0x1B, 0x03, 0x0B}}), true)), "ok");
  EXPECT_EQ(validation_error(single_function_module(concat({v128_zero, Bytes{0xFD, 0x1B, 0x04, 0x0B}}), true)),
            "invalid lane index");
  // i8x16.shuffle with lane 32.
  Bytes shuffle = {0xFD, 0x0D};
  for (int i = 0; i < 15; ++i) shuffle.push_back(0);
  shuffle.push_back(32);
  EXPECT_EQ(validation_error(single_function_module(concat({v128_zero, v128_zero, shuffle, Bytes{0x1A, 0x0B}}))),
            "invalid lane index");
}

TEST(Validator, ExportsAndStart) {
  Bytes duplicate = section(7, concat({Bytes{0x02}, name("f"), Bytes{0x00, 0x00}, name("f"), Bytes{0x00, 0x00}}));
  EXPECT_TRUE(starts_with(validation_error(module_of({type_section_void(), function_section(1), duplicate,
                                                      code_section({body({0x00, 0x0B})})})),
                          "duplicate export name"));
  Bytes unknown = section(7, concat({Bytes{0x01}, name("f"), Bytes{0x00, 0x05}}));
  EXPECT_TRUE(starts_with(validation_error(module_of({unknown})), "unknown function"));
  // Start function with a result.
  Bytes start = section(8, {0x00});
  EXPECT_TRUE(starts_with(validation_error(module_of({type_section_to_i32(), function_section(1), start,
                                                      code_section({body({0x00, 0x41, 0x00, 0x0B})})})),
                          "start function"));
}

TEST(Validator, DataSegmentsNeedTheDataCount) {
  // memory.init 1 with data count 1: unknown data segment.
  Bytes code = {0x00, 0x41, 0, 0x41, 0, 0x41, 0, 0xFC, 0x08, 0x01, 0x00, 0x0B};
  Bytes bytes = module_of({type_section_void(), function_section(1), memory_section(), section(12, {0x01}),
                           code_section({body(code)}), section(11, {0x01, 0x01, 0x00})});
  EXPECT_TRUE(starts_with(validation_error(bytes), "unknown data segment"));
}

TEST(Validator, ElementSegmentTypes) {
  // externref table, funcref active segment: type mismatch.
  Bytes table = section(4, {0x01, 0x6F, 0x00, 0x01});
  Bytes elements = section(9, {0x01, 0x00, 0x41, 0x00, 0x0B, 0x00});
  EXPECT_EQ(validation_error(module_of({table, elements})), "type mismatch");
  // Segment naming an unknown table.
  Bytes elements_table_3 = section(9, {0x01, 0x02, 0x03, 0x41, 0x00, 0x0B, 0x00, 0x00});
  EXPECT_TRUE(starts_with(validation_error(module_of({table, elements_table_3})), "unknown table"));
}

TEST(DecodeAndValidate, RejectsInvalidAndAcceptsValid) {
  EXPECT_TRUE(decode_and_validate(single_function_module({0x41, 0x07, 0x0B}, true)).ok());
  auto invalid = decode_and_validate(single_function_module({0x0B}, true));
  ASSERT_FALSE(invalid.ok());
  EXPECT_TRUE(invalid.error().offset.has_value());
}

}  // namespace
}  // namespace wasmgpu::wasm
