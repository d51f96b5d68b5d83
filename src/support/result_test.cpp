#include "support/result.h"

#include <gtest/gtest.h>

namespace wasmgpu {
namespace {

TEST(Error, CarriesTheCodeAndOffsetItWasMadeWith) {
  Error plain = make_error(ErrorCode::Unspecified, "no reason given");
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
  EXPECT_EQ(make_error_at(ErrorCode::Unspecified, 7, "bad").code, ErrorCode::Unspecified);
}

// Each code given reaches Error::code unchanged, with or without an offset.
TEST(Error, EveryCodeGivenReachesTheError) {
  const ErrorCode codes[] = {
      ErrorCode::InvalidArgument, ErrorCode::NotFound, ErrorCode::Unsupported, ErrorCode::Decode,
      ErrorCode::Validation,      ErrorCode::Compile,  ErrorCode::Trap,        ErrorCode::Timeout,
      ErrorCode::DeviceLost,      ErrorCode::Vulkan,   ErrorCode::Io,          ErrorCode::Internal};
  for (ErrorCode code : codes) {
    SCOPED_TRACE(to_string(code));
    Error plain = make_error(code, "m");
    EXPECT_EQ(plain.code, code);
    EXPECT_EQ(plain.message, "m");
    EXPECT_FALSE(plain.offset.has_value());
    Error at = make_error_at(code, 3, "m");
    EXPECT_EQ(at.code, code);
    EXPECT_EQ(at.offset, 3u);
    Status status = make_error(code, "m");
    EXPECT_EQ(status.error().code, code);
    Result<int> result = make_error_at(code, 5, "m");
    EXPECT_EQ(result.error().code, code);
    // A stage's default code leaves a code set at the origin alone.
    EXPECT_EQ(with_default_code(make_error(code, "m"), ErrorCode::Decode).code, code);
  }
}

TEST(Error, DefaultCodeOnlyFillsAnUnspecifiedOne) {
  EXPECT_EQ(with_default_code(make_error(ErrorCode::Unspecified, "x"), ErrorCode::Compile).code, ErrorCode::Compile);
  EXPECT_EQ(with_default_code(make_error(ErrorCode::Vulkan, "x"), ErrorCode::Compile).code, ErrorCode::Vulkan);

  Result<int> failed = with_default_code(Result<int>(make_error(ErrorCode::Unspecified, "x")), ErrorCode::Validation);
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
