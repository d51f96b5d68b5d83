#include "support/result.h"

#include <gtest/gtest.h>

namespace wasmgpu {
namespace {

TEST(Error, CarriesTheCodeAndOffsetItWasMadeWith) {
  Error plain = make_error("no reason given");
  EXPECT_EQ(plain.code, ErrorCode::Unspecified);
  EXPECT_FALSE(plain.offset.has_value());
  EXPECT_FALSE(plain.vk_result.has_value());
  EXPECT_EQ(plain.to_string(), "no reason given");

  Error io = make_error(ErrorCode::Io, "cannot open 'x'");
  EXPECT_EQ(io.code, ErrorCode::Io);
  EXPECT_EQ(io.message, "cannot open 'x'");

  Error at = make_error_at(ErrorCode::Decode, 0x1f, "unexpected end");
  EXPECT_EQ(at.code, ErrorCode::Decode);
  EXPECT_EQ(at.offset, 0x1fu);
  EXPECT_EQ(at.to_string(), "at byte 0x1f: unexpected end");
  EXPECT_EQ(make_error_at(7, "bad").code, ErrorCode::Unspecified);
}

TEST(Error, DefaultCodeOnlyFillsAnUnspecifiedOne) {
  EXPECT_EQ(with_default_code(make_error("x"), ErrorCode::Compile).code, ErrorCode::Compile);
  EXPECT_EQ(with_default_code(make_error(ErrorCode::Vulkan, "x"), ErrorCode::Compile).code, ErrorCode::Vulkan);

  Result<int> failed = with_default_code(Result<int>(make_error("x")), ErrorCode::Validation);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::Validation);
  EXPECT_EQ(failed.error().message, "x");
  Result<int> value = with_default_code(Result<int>(3), ErrorCode::Validation);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 3);
  Status status = with_default_code(Status(make_error(ErrorCode::Timeout, "t")), ErrorCode::Decode);
  EXPECT_EQ(status.error().code, ErrorCode::Timeout);
}

TEST(Error, EveryCodeHasAName) {
  EXPECT_STREQ(to_string(ErrorCode::DeviceLost), "device lost");
  EXPECT_STREQ(to_string(ErrorCode::Decode), "decode error");
  for (int code = int(ErrorCode::Unspecified); code <= int(ErrorCode::Internal); ++code)
    EXPECT_STRNE(to_string(ErrorCode(code)), "?") << code;
}

}  // namespace
}  // namespace wasmgpu
