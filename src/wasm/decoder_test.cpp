#include "wasm/decoder.h"

#include <gtest/gtest.h>

#include "wasm/binary_reader.h"
#include "wasm/test_module_builder.h"

namespace wasmgpu::wasm {
namespace {

using namespace testing;  // NOLINT: the builder helpers

// ---- LEB128 --------------------------------------------------------------

BinaryReader reader_over(const Bytes& bytes) { return BinaryReader(bytes); }

TEST(BinaryReader, UnsignedLeb32) {
  Bytes max = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  auto reader = reader_over(max);
  auto value = reader.read_u32();
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 0xFFFFFFFFu);
  EXPECT_TRUE(reader.at_end());

  // Overlong encodings up to the maximum length are allowed.
  Bytes overlong_zero = {0x80, 0x80, 0x80, 0x80, 0x00};
  auto zero = reader_over(overlong_zero).read_u32();
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, 0u);
}

TEST(BinaryReader, UnsignedLeb32TooLong) {
  Bytes six_bytes = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  auto value = reader_over(six_bytes).read_u32();
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.error().message, "integer representation too long");
  EXPECT_EQ(value.error().offset, 0u);
}

TEST(BinaryReader, UnsignedLeb32UnusedBitsSet) {
  for (uint8_t last : {0x1F, 0x10, 0x40, 0x70}) {
    Bytes bytes = {0xFF, 0xFF, 0xFF, 0xFF, last};
    auto value = reader_over(bytes).read_u32();
    ASSERT_FALSE(value.ok()) << int(last);
    EXPECT_EQ(value.error().message, "integer too large");
  }
}

TEST(BinaryReader, SignedLeb32) {
  struct Case {
    Bytes bytes;
    int32_t expected;
  };
  for (const Case& c : {Case{{0x7F}, -1}, Case{{0x80, 0x80, 0x80, 0x80, 0x78}, INT32_MIN},
                        Case{{0xFF, 0xFF, 0xFF, 0xFF, 0x07}, INT32_MAX}, Case{{0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, -1},
                        Case{{0xC0, 0x00}, 64}}) {
    auto value = reader_over(c.bytes).read_s32();
    ASSERT_TRUE(value.ok());
    EXPECT_EQ(*value, c.expected);
  }
  // The unused bits of the fifth byte must replicate the sign bit.
  for (uint8_t last : {0x0F, 0x70, 0x08, 0x77, 0x1F}) {
    Bytes bytes = {0xFF, 0xFF, 0xFF, 0xFF, last};
    auto value = reader_over(bytes).read_s32();
    ASSERT_FALSE(value.ok()) << int(last);
    EXPECT_EQ(value.error().message, "integer too large");
  }
}

TEST(BinaryReader, SignedLeb64) {
  Bytes minus_one = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  auto value = reader_over(minus_one).read_s64();
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, -1);
  Bytes min = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F};
  value = reader_over(min).read_s64();
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, INT64_MIN);
  Bytes unused_bits = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x41};
  value = reader_over(unused_bits).read_s64();
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.error().message, "integer too large");
  Bytes eleven = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  value = reader_over(eleven).read_s64();
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.error().message, "integer representation too long");
}

TEST(BinaryReader, UnsignedLeb64UnusedBits) {
  Bytes max = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  auto value = reader_over(max).read_u64();
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, UINT64_MAX);
  Bytes too_large = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
  EXPECT_FALSE(reader_over(too_large).read_u64().ok());
}

TEST(BinaryReader, SignedLeb33ForBlockTypes) {
  Bytes max_index = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};  // 2^32 - 1
  auto value = reader_over(max_index).read_s33();
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, int64_t(0xFFFFFFFF));
  Bytes too_large = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};  // bit 32 set but not sign-extended
  EXPECT_FALSE(reader_over(too_large).read_s33().ok());
}

TEST(BinaryReader, TruncatedLebIsUnexpectedEnd) {
  Bytes truncated = {0x80, 0x80};
  auto value = reader_over(truncated).read_u32();
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.error().message, "unexpected end");
  EXPECT_EQ(value.error().offset, 2u);
}

TEST(BinaryReader, Utf8) {
  EXPECT_TRUE(is_valid_utf8(Bytes{'a', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80}));
  EXPECT_FALSE(is_valid_utf8(Bytes{0xC0, 0x80}));              // overlong NUL
  EXPECT_FALSE(is_valid_utf8(Bytes{0xE0, 0x80, 0x80}));        // overlong
  EXPECT_FALSE(is_valid_utf8(Bytes{0xED, 0xA0, 0x80}));        // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8(Bytes{0xF4, 0x90, 0x80, 0x80}));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8(Bytes{0xE2, 0x82}));              // truncated
  EXPECT_FALSE(is_valid_utf8(Bytes{0x80}));                    // stray continuation
  EXPECT_FALSE(is_valid_utf8(Bytes{0xFF}));
}

// ---- Module structure ----------------------------------------------------

std::string decode_error(const Bytes& bytes) {
  auto module = decode(bytes);
  return module.ok() ? "ok" : module.error().message;
}

TEST(Decoder, EmptyModule) {
  auto module = decode(module_header());
  ASSERT_TRUE(module.ok());
  EXPECT_TRUE(module->functions.empty());
}

TEST(Decoder, HeaderErrors) {
  EXPECT_EQ(decode_error({}), "unexpected end");
  EXPECT_EQ(decode_error({0x00, 0x61}), "unexpected end");
  EXPECT_EQ(decode_error({'m', 's', 'a', 0x00, 0x01, 0, 0, 0}), "magic header not detected");
  EXPECT_EQ(decode_error({0x00, 0x61, 0x73, 0x6D, 0x02, 0, 0, 0}), "unknown binary version");
}

TEST(Decoder, ErrorsAreDecodeErrorsAtTheirOffset) {
  const Bytes truncated = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00};
  auto module = decode(truncated);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().code, ErrorCode::Decode);
  EXPECT_TRUE(module.error().offset.has_value());
  // A module that decodes but does not validate is a validation error.
  auto invalid = decode_and_validate(single_function_module({0x41, 0x01, 0x42, 0x02, 0x6A, 0x0B}, true));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().code, ErrorCode::Validation);
}

TEST(Decoder, SectionOrder) {
  // Function section before type section.
  Bytes bytes = module_of({function_section(0), type_section_void()});
  auto module = decode(bytes);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message, "unexpected content after last section");
  EXPECT_EQ(module.error().offset, 8u + 3u);
  // Duplicate sections are out of order too.
  EXPECT_EQ(decode_error(module_of({type_section_void(), type_section_void()})),
            "unexpected content after last section");
  // Custom sections go anywhere, and the data count section sits before code.
  Bytes custom = section(0, name("hello"));
  EXPECT_EQ(decode_error(module_of({custom, type_section_void(), custom, function_section(1), custom,
                                    section(12, {0x00}), code_section({body({0x00, 0x0B})}), custom})),
            "ok");
  EXPECT_EQ(decode_error(module_of({section(13, {})})), "malformed section id");
}

TEST(Decoder, SectionSizeMismatch) {
  // A type section that says 5 bytes but whose contents take 4.
  Bytes bytes = concat({module_header(), Bytes{0x01, 0x05, 0x01, 0x60, 0x00, 0x00, 0x00}});
  auto module = decode(bytes);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message, "section size mismatch");
  EXPECT_EQ(module.error().offset, 14u);
  // A section longer than the module.
  EXPECT_NE(decode_error(concat({module_header(), Bytes{0x01, 0x7F, 0x00}})), "ok");
}

TEST(Decoder, FunctionAndCodeCountsMustAgree) {
  EXPECT_EQ(decode_error(module_of({type_section_void(), function_section(2), code_section({body({0x00, 0x0B})})})),
            "function and code section have inconsistent lengths");
  EXPECT_EQ(decode_error(module_of({type_section_void(), function_section(1)})),
            "function and code section have inconsistent lengths");
}

TEST(Decoder, DataCountRules) {
  Bytes memory = section(5, {0x01, 0x00, 0x01});
  // data count says 1, no data section.
  EXPECT_EQ(decode_error(module_of({memory, section(12, {0x01})})),
            "data count and data section have inconsistent lengths");
  // data count says 2, data section has 1 passive segment.
  EXPECT_EQ(decode_error(module_of({memory, section(12, {0x02}), section(11, {0x01, 0x01, 0x00})})),
            "data count and data section have inconsistent lengths");
  // data.drop without a data count section.
  Bytes data_drop = {0xFC, 0x09, 0x00, 0x0B};
  EXPECT_EQ(decode_error(
                module_of({type_section_void(), function_section(1), memory,
                           code_section({body(concat({Bytes{0x00}, data_drop}))}), section(11, {0x01, 0x01, 0x00})})),
            "data count section required");
  EXPECT_EQ(decode_error(
                module_of({type_section_void(), function_section(1), memory, section(12, {0x01}),
                           code_section({body(concat({Bytes{0x00}, data_drop}))}), section(11, {0x01, 0x01, 0x00})})),
            "ok");
}

TEST(Decoder, TooManyLocalsIsRejectedWithoutAllocating) {
  // 0xFFFFFFFF i32 locals plus 2 i64 locals: over 2^32 - 1 in total.
  Bytes locals = concat({Bytes{0x02}, Bytes{0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F}, Bytes{0x02, 0x7E}});
  Bytes bytes =
      module_of({type_section_void(), function_section(1), code_section({body(concat({locals, Bytes{0x0B}}))})});
  EXPECT_EQ(decode_error(bytes), "too many locals");
  // 0xFFFFFFFF alone is within the spec's limit but beyond the implementation's.
  Bytes many = concat({Bytes{0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F}, Bytes{0x0B}});
  std::string error = decode_error(module_of({type_section_void(), function_section(1), code_section({body(many)})}));
  EXPECT_NE(error.find("too many locals"), std::string::npos) << error;
}

TEST(Decoder, LocalsAreExpanded) {
  Bytes code = {0x02, 0x02, 0x7F, 0x01, 0x7C, 0x0B};  // 2 x i32, 1 x f64
  auto module = decode(module_of({type_section_void(), function_section(1), code_section({body(code)})}));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  EXPECT_EQ(module->functions[0].locals, (std::vector<ValType>{ValType::I32, ValType::I32, ValType::F64}));
}

TEST(Decoder, HugeVectorCountsFailCleanly) {
  // A type section claiming 2^32 - 1 types, with none present.
  Bytes bytes = module_of({section(1, {0xFF, 0xFF, 0xFF, 0xFF, 0x0F})});
  EXPECT_EQ(decode_error(bytes), "unexpected end of section or function");
  // br_table with 2^32 - 1 targets.
  Bytes br_table = {0x41, 0x00, 0x0E, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x0B};
  EXPECT_NE(decode_error(single_function_module(br_table)), "ok");
}

TEST(Decoder, BlockBookkeeping) {
  // 0 block 1 loop 2 end 3 end 4 i32.const 5 if 6 nop 7 else 8 nop 9 end 10 i32.const 11 if 12 end 13 end
  Bytes code = {0x02, 0x40, 0x03, 0x40, 0x0B, 0x0B, 0x41, 0x01, 0x04, 0x40,
                0x01, 0x05, 0x01, 0x0B, 0x41, 0x00, 0x04, 0x40, 0x0B, 0x0B};
  auto module = decode(single_function_module(code));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const auto& body = module->functions[0].body;
  ASSERT_EQ(body.size(), 14u);
  EXPECT_EQ(body[0].op, Opcode::Block);
  EXPECT_EQ(body[0].imm0, 3u);
  EXPECT_EQ(body[0].imm1, 3u);
  EXPECT_EQ(body[1].imm0, 2u);
  EXPECT_EQ(body[1].imm1, 2u);
  EXPECT_EQ(body[5].op, Opcode::If);
  EXPECT_EQ(body[5].imm0, 7u);    // else
  EXPECT_EQ(body[5].imm1, 9u);    // end
  EXPECT_EQ(body[11].imm0, 12u);  // no else: equals the end
  EXPECT_EQ(body[11].imm1, 12u);
  EXPECT_EQ(body[13].op, Opcode::End);
  // Offsets are absolute: the body starts after header(8) + type(6) + func(4) + code header(3) + size(1) + locals(1).
  EXPECT_EQ(body[0].offset, 8u + 6u + 4u + 3u + 1u + 1u);
}

TEST(Decoder, MultiValueBlockTypeAndTypedSelect) {
  // Types: 0 = [] -> [], 1 = [i32] -> [i32 i32].
  Bytes types = section(1, {0x02, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7F, 0x02, 0x7F, 0x7F});
  // i32.const 1; block (type 1); end; select (result i32); drop
  Bytes code = {0x00, 0x41, 0x01, 0x02, 0x01, 0x0B, 0x41, 0x00, 0x1C, 0x01, 0x7F, 0x1A, 0x0B};
  auto module = decode(module_of({types, function_section(1), code_section({body(code)})}));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const auto& body = module->functions[0].body;
  EXPECT_EQ(body[1].block.kind, BlockType::Kind::TypeIndex);
  EXPECT_EQ(body[1].block.type_index, 1u);
  EXPECT_EQ(body[4].op, Opcode::SelectTyped);
  EXPECT_EQ(body[4].imm0, uint32_t(ValType::I32));
  EXPECT_EQ(body[4].imm1, 1u);
}

TEST(Decoder, ImmediatesOfMemoryAndConstants) {
  // i32.const -2; i64.const min; f32.const 1.0; drop drop; i32.load align=2 offset=16; drop
  Bytes code = {0x41, 0x7E, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F,
                0x43, 0x00, 0x00, 0x80, 0x3F, 0x1A, 0x1A, 0x28, 0x02, 0x10, 0x1A, 0x0B};
  Bytes bytes = module_of({type_section_void(), function_section(1), section(5, {0x01, 0x00, 0x01}),
                           code_section({body(concat({Bytes{0x00}, code}))})});
  auto module = decode(bytes);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const auto& body = module->functions[0].body;
  EXPECT_EQ(int64_t(body[0].imm64), -2);
  EXPECT_EQ(int64_t(body[1].imm64), INT64_MIN);
  EXPECT_EQ(body[2].imm64, 0x3F800000u);
  EXPECT_EQ(body[5].op, Opcode::I32Load);
  EXPECT_EQ(body[5].imm0, 2u);
  EXPECT_EQ(body[5].imm1, 16u);
}

TEST(Decoder, SimdImmediates) {
  // v128.const bytes 0..15; i8x16.extract_lane_u 5; drop
  Bytes code = {0xFD, 0x0C};
  for (uint8_t i = 0; i < 16; ++i) code.push_back(i);
  code.insert(code.end(), {0xFD, 0x16, 0x05, 0x1A, 0x0B});
  auto module = decode(single_function_module(code));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  const auto& body = module->functions[0].body;
  EXPECT_EQ(body[0].op, Opcode::V128Const);
  EXPECT_EQ(body[0].imm64, 0x0706050403020100u);
  EXPECT_EQ(body[0].imm64_hi, 0x0F0E0D0C0B0A0908u);
  EXPECT_EQ(body[1].op, Opcode::I8x16ExtractLaneU);
  EXPECT_EQ(body[1].imm0, 5u);
}

TEST(Decoder, OpcodeTableHasAllSimdInstructions) {
  int simd = 0;
  for (uint32_t i = 0; i < kOpcodeCount; ++i)
    if (info(static_cast<Opcode>(i)).cls == OpcodeClass::Vector) ++simd;  // the 0xFD prefix (opcode_test.cpp)
  EXPECT_EQ(simd, 236 + 20);  // the fixed-width SIMD proposal, and relaxed SIMD (0xFD 0x100..0x113)
  EXPECT_EQ(lookup_opcode(0xFD, 0xFF), Opcode::F64x2ConvertLowI32x4U);
  EXPECT_EQ(lookup_opcode(0xFD, 0x100), Opcode::I8x16RelaxedSwizzle);
  EXPECT_EQ(lookup_opcode(0xFD, 0x101), Opcode::I32x4RelaxedTruncF32x4S);
  EXPECT_EQ(lookup_opcode(0xFD, 0x105), Opcode::F32x4RelaxedMadd);
  EXPECT_EQ(lookup_opcode(0xFD, 0x10C), Opcode::I64x2RelaxedLaneselect);
  EXPECT_EQ(lookup_opcode(0xFD, 0x113), Opcode::I32x4RelaxedDotI8x16I7x16AddS);
  EXPECT_EQ(lookup_opcode(0xFD, 0x114), std::nullopt);  // past relaxed SIMD
  EXPECT_EQ(lookup_opcode(0xFD, 0x9A), std::nullopt);   // reserved
}

TEST(Decoder, IllegalOpcodeNamesItsOffset) {
  auto module = decode(single_function_module({0x06, 0x0B}));
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message, "illegal opcode");
  EXPECT_EQ(module.error().offset, 8u + 6u + 4u + 3u + 1u + 1u);  // header, type, function, code header, size, locals
  EXPECT_EQ(module.error().to_string().rfind("at byte 0x", 0), 0u) << module.error().to_string();
}

TEST(Decoder, MissingEndAndTrailingBytes) {
  EXPECT_EQ(decode_error(single_function_module({0x01})), "unexpected end of section or function");
  EXPECT_NE(decode_error(single_function_module({0x0B, 0x01})), "ok");
}

TEST(Decoder, MalformedUtf8Name) {
  Bytes bytes = module_of({section(0, concat({uleb(2), Bytes{0xC0, 0x80}}))});
  EXPECT_EQ(decode_error(bytes), "malformed UTF-8 encoding");
}

TEST(Decoder, ElementSegmentEncodings) {
  Bytes table = section(4, {0x01, 0x70, 0x00, 0x01});
  Bytes i32_zero = {0x41, 0x00, 0x0B};
  Bytes elements = concat({Bytes{0x08}, concat({Bytes{0x00}, i32_zero, Bytes{0x01, 0x00}}),  // 0
                           Bytes{0x01, 0x00, 0x01, 0x00},                                    // 1 passive
                           concat({Bytes{0x02, 0x00}, i32_zero, Bytes{0x00, 0x01, 0x00}}),   // 2
                           Bytes{0x03, 0x00, 0x01, 0x00},                                    // 3 declarative
                           concat({Bytes{0x04}, i32_zero, Bytes{0x01, 0xD2, 0x00, 0x0B}}),   // 4
                           Bytes{0x05, 0x70, 0x01, 0xD0, 0x70, 0x0B},                        // 5 passive exprs
                           concat({Bytes{0x06, 0x00}, i32_zero, Bytes{0x70, 0x01, 0xD2, 0x00, 0x0B}}),  // 6
                           Bytes{0x07, 0x70, 0x01, 0xD2, 0x00, 0x0B}});  // 7 declarative exprs
  Bytes bytes = module_of(
      {type_section_void(), function_section(1), table, section(9, elements), code_section({body({0x00, 0x0B})})});
  auto module = decode_and_validate(bytes);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  ASSERT_EQ(module->elements.size(), 8u);
  using Mode = ElementSegment::Mode;
  const Mode modes[] = {Mode::Active, Mode::Passive, Mode::Active, Mode::Declarative,
                        Mode::Active, Mode::Passive, Mode::Active, Mode::Declarative};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(module->elements[i].mode, modes[i]) << i;
    ASSERT_EQ(module->elements[i].items.size(), 1u) << i;
    EXPECT_EQ(module->elements[i].items[0].instrs.back().op, Opcode::End);
  }
  EXPECT_EQ(module->elements[0].items[0].instrs[0].op, Opcode::RefFunc);
  EXPECT_EQ(module->elements[5].items[0].instrs[0].op, Opcode::RefNull);
  EXPECT_EQ(decode_error(module_of({section(9, {0x01, 0x08})})), "malformed elements segment kind");
}

// ---- Custom and name sections --------------------------------------------

Bytes name_subsection(uint8_t id, const Bytes& contents) {
  return concat({Bytes{id}, uleb(contents.size()), contents});
}

TEST(Decoder, NameSection) {
  Bytes names = concat({
      name("name"),
      name_subsection(0, name("mod")),
      name_subsection(1, concat({Bytes{0x01, 0x00}, name("f")})),
      name_subsection(2, concat({Bytes{0x01, 0x00, 0x02, 0x01}, name("b"), Bytes{0x00}, name("a")})),
      name_subsection(3, {0x00}),  // label names: skipped
      name_subsection(7, concat({Bytes{0x01, 0x00}, name("g")})),
      name_subsection(9, concat({Bytes{0x01, 0x00}, name("d")})),
  });
  Bytes bytes =
      module_of({type_section_void(), function_section(1), code_section({body({0x00, 0x0B})}), section(0, names)});
  auto module = decode(bytes);
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  EXPECT_EQ(module->names.module_name, "mod");
  ASSERT_EQ(module->names.function_names.size(), 1u);
  EXPECT_EQ(module->function_name(0), "f");
  ASSERT_EQ(module->names.local_names.size(), 1u);
  const auto& locals = module->names.local_names[0].second;
  ASSERT_EQ(locals.size(), 2u);
  EXPECT_EQ(locals[0], (std::pair<uint32_t, std::string>{0, "a"}));  // sorted by index
  EXPECT_EQ(module->global_name(0), "g");
  ASSERT_EQ(module->names.data_names.size(), 1u);
  EXPECT_EQ(module->names.data_names[0].second, "d");
  ASSERT_EQ(module->custom_sections.size(), 1u);
  EXPECT_EQ(module->custom_sections[0].name, "name");
}

TEST(Decoder, MalformedNameSectionIsIgnored) {
  // Function names subsection claiming 5 entries, holding one with bad UTF-8.
  Bytes names = concat({name("name"), name_subsection(0, name("ok")),
                        name_subsection(1, concat({Bytes{0x05, 0x00}, uleb(1), Bytes{0xFF}}))});
  auto module = decode(module_of({section(0, names)}));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  EXPECT_FALSE(module->names.module_name.has_value());
  EXPECT_TRUE(module->names.function_names.empty());
  EXPECT_EQ(module->custom_sections.size(), 1u);
}

TEST(Decoder, CustomSectionsAreKept) {
  Bytes custom = section(0, concat({name("meta"), Bytes{1, 2, 3}}));
  auto module = decode(module_of({custom}));
  ASSERT_TRUE(module.ok());
  ASSERT_EQ(module->custom_sections.size(), 1u);
  EXPECT_EQ(module->custom_sections[0].name, "meta");
  EXPECT_EQ(module->custom_sections[0].bytes, (Bytes{1, 2, 3}));
  EXPECT_EQ(module->custom_sections[0].offset, 8u + 2u + 5u);
}

TEST(Decoder, ImportsAndExports) {
  Bytes imports = concat({Bytes{0x04}, name("env"), name("f"), Bytes{0x00, 0x00}, name("env"), name("t"),
                          Bytes{0x01, 0x70, 0x00, 0x01}, name("env"), name("m"), Bytes{0x02, 0x01, 0x01, 0x02},
                          name("env"), name("g"), Bytes{0x03, 0x7E, 0x01}});
  Bytes exports = concat({Bytes{0x01}, name("run"), Bytes{0x00, 0x01}});
  auto module = decode(module_of({type_section_void(), section(2, imports), function_section(1), section(7, exports),
                                  code_section({body({0x00, 0x0B})})}));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  EXPECT_EQ(module->imported_functions, 1u);
  EXPECT_EQ(module->imported_tables, 1u);
  EXPECT_EQ(module->imported_memories, 1u);
  EXPECT_EQ(module->imported_globals, 1u);
  EXPECT_EQ(module->imports[2].memory.limits.max, 2u);
  EXPECT_TRUE(module->imports[3].global.is_mutable);
  ASSERT_NE(module->find_export("run", ExternalKind::Func), nullptr);
  EXPECT_EQ(module->find_export("run", ExternalKind::Func)->index, 1u);
  Bytes bad_kind = concat({Bytes{0x01}, name("a"), name("b"), Bytes{0x04, 0x00}});
  EXPECT_EQ(decode_error(module_of({section(2, bad_kind)})), "malformed import kind");
}

}  // namespace
}  // namespace wasmgpu::wasm

// ---- multi-memory (WebAssembly 3.0) ----------------------------------------

namespace wasmgpu::wasm {
namespace {

using namespace testing;  // NOLINT: the builder helpers

// A module with `memories` one-page memories and one void function of `code`
// (locals: none), decoded.
Result<Module> decode_with_memories(uint8_t memories, const Bytes& code, bool data_count = false) {
  Bytes memory_entries = {memories};
  for (uint8_t i = 0; i < memories; ++i) memory_entries.insert(memory_entries.end(), {0x00, 0x01});
  std::vector<Bytes> sections = {type_section_void(), function_section(1), section(5, memory_entries)};
  if (data_count) sections.push_back(section(12, {0x01}));
  sections.push_back(code_section({body(concat({Bytes{0x00}, code}))}));
  if (data_count) sections.push_back(section(11, {0x01, 0x01, 0x00}));  // one passive, empty segment
  Bytes bytes = module_header();
  for (const Bytes& s : sections) bytes.insert(bytes.end(), s.begin(), s.end());
  return decode(bytes);
}

TEST(Decoder, MultiMemoryMemArgCarriesTheMemoryIndex) {
  // i32.const 0; i32.load (flags 0x42: align 2, a memory index follows) memory 1 offset 4; drop;
  // i32.const 0; i64.load align 3 offset 8 (memory 0, no index); drop
  auto module =
      decode_with_memories(2, {0x41, 0x00, 0x28, 0x42, 0x01, 0x04, 0x1A, 0x41, 0x00, 0x29, 0x03, 0x08, 0x1A, 0x0B});
  ASSERT_TRUE(module.ok()) << module.error().message;
  const std::vector<Instr>& code = module->functions[0].body;
  EXPECT_EQ(code[1].op, Opcode::I32Load);
  EXPECT_EQ(code[1].imm0, 2u);
  EXPECT_EQ(code[1].imm1, 4u);
  EXPECT_EQ(code[1].memory, 1u);
  EXPECT_EQ(code[4].op, Opcode::I64Load);
  EXPECT_EQ(code[4].imm0, 3u);
  EXPECT_EQ(code[4].imm1, 8u);
  EXPECT_EQ(code[4].memory, 0u);
}

TEST(Decoder, MultiMemoryBulkInstructionsCarryTheirMemories) {
  // memory.size 2; drop; i32.const 0; memory.grow 1; drop;
  // i32.const 0 x3; memory.fill 2; i32.const 0 x3; memory.copy 2 1; i32.const 0 x3; memory.init 0 1
  const Bytes code = {0x3F, 0x02, 0x1A, 0x41, 0x00, 0x40, 0x01, 0x1A, 0x41, 0x00, 0x41, 0x00, 0x41,
                      0x00, 0xFC, 0x0B, 0x02, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x0A, 0x02,
                      0x01, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x08, 0x00, 0x01, 0x0B};
  auto module = decode_with_memories(3, code, /*data_count=*/true);
  ASSERT_TRUE(module.ok()) << module.error().message;
  const std::vector<Instr>& body = module->functions[0].body;
  EXPECT_EQ(body[0].op, Opcode::MemorySize);
  EXPECT_EQ(body[0].memory, 2u);
  EXPECT_EQ(body[3].op, Opcode::MemoryGrow);
  EXPECT_EQ(body[3].memory, 1u);
  EXPECT_EQ(body[8].op, Opcode::MemoryFill);
  EXPECT_EQ(body[8].memory, 2u);
  EXPECT_EQ(body[12].op, Opcode::MemoryCopy);
  EXPECT_EQ(body[12].memory, 2u);
  EXPECT_EQ(body[12].source_memory, 1u);
  EXPECT_EQ(body[16].op, Opcode::MemoryInit);
  EXPECT_EQ(body[16].imm0, 0u);
  EXPECT_EQ(body[16].memory, 1u);
}

TEST(Decoder, OneMemoryKeepsTheReservedZeroBytes) {
  // With one memory the 2.0 encoding holds (the 2.0 suite's binary.wast):
  // memory.grow's byte must be a single zero, and a memarg's bit 6 is alignment.
  auto grow = decode_with_memories(1, {0x41, 0x00, 0x40, 0x01, 0x1A, 0x0B});
  ASSERT_FALSE(grow.ok());
  EXPECT_EQ(grow.error().message, "zero byte expected");
  auto long_zero = decode_with_memories(1, {0x41, 0x00, 0x40, 0x80, 0x00, 0x1A, 0x0B});
  ASSERT_FALSE(long_zero.ok());
  auto load = decode_with_memories(1, {0x41, 0x00, 0x28, 0x42, 0x01, 0x1A, 0x0B});
  ASSERT_TRUE(load.ok()) << load.error().message;
  EXPECT_EQ(load->functions[0].body[1].imm0, 0x42u);  // an alignment the validator refuses
  EXPECT_EQ(load->functions[0].body[1].imm1, 1u);
  EXPECT_EQ(load->functions[0].body[1].memory, 0u);
  // With two memories a long zero is a memory index like any other.
  auto two = decode_with_memories(2, {0x41, 0x00, 0x40, 0x80, 0x00, 0x1A, 0x0B});
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->functions[0].body[1].memory, 0u);
}

}  // namespace
}  // namespace wasmgpu::wasm
