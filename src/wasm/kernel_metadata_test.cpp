#include "wasm/kernel_metadata.h"

#include <gtest/gtest.h>

#include "wasm/decoder.h"
#include "wasm/test_module_builder.h"

namespace wasmgpu::wasm {
namespace {

using namespace testing;  // NOLINT: the builder helpers

Bytes cstring(std::string_view text) {
  Bytes out(text.begin(), text.end());
  out.push_back(0);
  return out;
}

Bytes le32(uint32_t value) { return {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)}; }

Bytes param(uint8_t kind, uint32_t size, uint32_t alignment, std::string_view name, std::string_view type,
            std::string_view pointee) {
  return concat({Bytes{kind}, le32(size), le32(alignment), cstring(name), cstring(type), cstring(pointee)});
}

// saxpy(int i, float a, const float *x, float *y), as the header encodes it.
Bytes saxpy_record() {
  return concat({Bytes{1}, cstring("saxpy"), Bytes{4}, param(0, 4, 4, "i", "int", ""), param(1, 4, 4, "a", "float", ""),
                 param(3, 4, 4, "x", "const float *", "float"), param(2, 4, 4, "y", "float *", "float")});
}

// step(int i, Particle *p, double dt, long long n)
Bytes step_record() {
  return concat({Bytes{1}, cstring("step"), Bytes{4}, param(0, 4, 4, "i", "int", ""),
                 param(2, 24, 8, "p", "Particle *", "Particle"), param(1, 8, 8, "dt", "double", ""),
                 param(0, 8, 8, "n", "long long", "")});
}

TEST(KernelMetadata, ParsesRecordsExactly) {
  auto parsed = parse_kernel_metadata(concat({saxpy_record(), step_record()}));
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  ASSERT_EQ(parsed->size(), 2u);
  const KernelMetadata& saxpy = (*parsed)[0];
  EXPECT_EQ(saxpy.kernel, "saxpy");
  ASSERT_EQ(saxpy.params.size(), 4u);
  EXPECT_EQ(saxpy.params[2], (KernelParam{KernelParam::Kind::ConstPointer, 4, 4, "x", "const float *", "float"}));
  EXPECT_EQ(saxpy.params[1], (KernelParam{KernelParam::Kind::Float, 4, 4, "a", "float", ""}));
  const KernelMetadata& step = (*parsed)[1];
  EXPECT_EQ(step.params[1], (KernelParam{KernelParam::Kind::Pointer, 24, 8, "p", "Particle *", "Particle"}));
  EXPECT_EQ(step.params[3], (KernelParam{KernelParam::Kind::Integer, 8, 8, "n", "long long", ""}));
  EXPECT_EQ(describe(step.params[1]), "Particle * p (Particle: 24 bytes, align 8)");
  EXPECT_EQ(describe(step.params[2]), "double dt");
}

// blur(int i, wasmgpu_image src, wasmgpu_sampler s, wasmgpu_image dst):
// image and sampler handles (kinds 4 and 5, added to version 1).
Bytes blur_record() {
  return concat({Bytes{1}, cstring("blur"), Bytes{4}, param(0, 4, 4, "i", "int", ""),
                 param(4, 4, 4, "src", "wasmgpu_image", ""), param(5, 4, 4, "s", "wasmgpu_sampler", ""),
                 param(4, 4, 4, "dst", "wasmgpu_image", "")});
}

TEST(KernelMetadata, ParsesImageAndSamplerHandles) {
  auto parsed = parse_kernel_metadata(concat({saxpy_record(), blur_record()}));
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].params[3], (KernelParam{KernelParam::Kind::Pointer, 4, 4, "y", "float *", "float"}));
  const KernelMetadata& blur = (*parsed)[1];
  ASSERT_EQ(blur.params.size(), 4u);
  EXPECT_EQ(blur.params[1], (KernelParam{KernelParam::Kind::Image, 4, 4, "src", "wasmgpu_image", ""}));
  EXPECT_EQ(blur.params[2], (KernelParam{KernelParam::Kind::Sampler, 4, 4, "s", "wasmgpu_sampler", ""}));
  EXPECT_TRUE(blur.params[3].is_handle());
  EXPECT_FALSE(blur.params[3].is_pointer());
  EXPECT_EQ(describe(blur.params[1]), "wasmgpu_image src");
}

TEST(KernelMetadata, EmptySectionHasNoRecords) {
  auto parsed = parse_kernel_metadata({});
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
}

// Every proper prefix of a valid section is refused as truncated (never read
// past the end, never accepted as a shorter list).
TEST(KernelMetadata, EveryTruncationIsAnError) {
  Bytes whole = concat({saxpy_record(), step_record()});
  size_t record_end = saxpy_record().size();
  for (size_t length = 0; length < whole.size(); ++length) {
    auto parsed = parse_kernel_metadata(std::span(whole.data(), length));
    if (length == 0 || length == record_end) {
      EXPECT_TRUE(parsed.ok()) << "length " << length;  // a whole number of records
      continue;
    }
    ASSERT_FALSE(parsed.ok()) << "length " << length;
    EXPECT_NE(parsed.error().message.find("truncated"), std::string::npos) << parsed.error().message;
  }
}

// Overwriting any byte of a record gives an error that says where, or a
// record that is still well-formed; never a read past the end.
TEST(KernelMetadata, EveryCorruptedByteIsHandled) {
  Bytes whole = saxpy_record();
  for (size_t i = 0; i < whole.size(); ++i) {
    for (uint8_t value : {uint8_t(0), uint8_t(0x7F), uint8_t(0xFF)}) {
      Bytes corrupted = whole;
      corrupted[i] = value;
      auto parsed = parse_kernel_metadata(corrupted);
      if (!parsed.ok()) {
        EXPECT_NE(parsed.error().message.find("wasmgpu.kernels section, byte "), std::string::npos);
      }
    }
  }
}

TEST(KernelMetadata, MalformedRecordsNameWhatIsWrong) {
  auto error_of = [](const Bytes& bytes) {
    auto parsed = parse_kernel_metadata(bytes);
    return parsed.ok() ? std::string("(accepted)") : parsed.error().message;
  };
  EXPECT_EQ(error_of(concat({Bytes{2}, cstring("k"), Bytes{0}})),
            "wasmgpu.kernels section, byte 0: record version 2 (this wasmgpu reads 1)");
  EXPECT_EQ(error_of(concat({Bytes{1}, cstring("k"), Bytes{1}, param(6, 4, 4, "i", "int", "")})),
            "wasmgpu.kernels section, byte 4: unknown kind 6 of parameter 0 of kernel 'k'");
  EXPECT_EQ(error_of(concat({Bytes{1}, cstring("k"), Bytes{1}, param(4, 4, 4, "img", "wasmgpu_image", "float")})),
            "wasmgpu.kernels section, byte 4: parameter 0 of kernel 'k' is a value with a pointee type");
  EXPECT_EQ(error_of(concat({Bytes{1}, cstring("k"), Bytes{1}, param(0, 4, 3, "i", "int", "")})),
            "wasmgpu.kernels section, byte 9: alignment 3 of parameter 0 of kernel 'k' is not a power of two "
            "dividing its size 4");
  EXPECT_EQ(error_of(concat({Bytes{1}, cstring("k"), Bytes{1}, param(2, 4, 4, "p", "float *", "")})),
            "wasmgpu.kernels section, byte 4: parameter 0 of kernel 'k' is a pointer without a pointee type");
  EXPECT_EQ(error_of(concat({Bytes{1}, cstring(""), Bytes{0}})),
            "wasmgpu.kernels section, byte 1: a record without a kernel name");
  EXPECT_EQ(error_of(concat({Bytes{1}, cstring("k"), Bytes{2}, param(0, 4, 4, "i", "int", "")})),
            "wasmgpu.kernels section, byte 20: truncated: the section ends inside the kind of parameter 1 of "
            "kernel 'k'");
}

// ---- Agreement with the export's signature --------------------------------

// A module exporting "saxpy" of type (i32, f32, i32, i32) -> (), and a
// "wasmgpu.kernels" section holding `records`.
Bytes saxpy_module(const Bytes& records) {
  Bytes type = section(1, {0x01, 0x60, 0x04, 0x7F, 0x7D, 0x7F, 0x7F, 0x00});
  Bytes exports = section(7, concat({Bytes{0x01}, name("saxpy"), Bytes{0x00, 0x00}}));
  Bytes code = code_section({body({0x00, 0x0B})});
  Bytes custom = section(0, concat({name("wasmgpu.kernels"), records}));
  return module_of({type, function_section(1), exports, code, custom});
}

Result<std::vector<KernelMetadata>> read_from(const Bytes& wasm) {
  auto module = decode_and_validate(wasm);
  if (!module.ok()) return module.take_error();
  return read_kernel_metadata(*module);
}

TEST(KernelMetadata, ReadsTheSectionOfAModule) {
  auto records = read_from(saxpy_module(saxpy_record()));
  ASSERT_TRUE(records.ok()) << records.error().to_string();
  ASSERT_EQ(records->size(), 1u);
  EXPECT_EQ((*records)[0].kernel, "saxpy");
  auto none = read_from(module_of({}));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(KernelMetadata, DisagreementWithTheSignatureNamesKernelAndParameter) {
  auto error_of = [](const Bytes& records) {
    auto read = read_from(saxpy_module(records));
    return read.ok() ? std::string("(accepted)") : read.error().message;
  };
  // a declared as double: f64, but the wasm function takes f32.
  Bytes wrong_type =
      concat({Bytes{1}, cstring("saxpy"), Bytes{4}, param(0, 4, 4, "i", "int", ""), param(1, 8, 8, "a", "double", ""),
              param(3, 4, 4, "x", "const float *", "float"), param(2, 4, 4, "y", "float *", "float")});
  EXPECT_EQ(error_of(wrong_type),
            "parameter metadata for kernel 'saxpy', parameter 1 (double a): the wasm function takes f32 there, "
            "not f64");
  Bytes too_few = concat({Bytes{1}, cstring("saxpy"), Bytes{1}, param(0, 4, 4, "i", "int", "")});
  EXPECT_EQ(error_of(too_few), "parameter metadata for kernel 'saxpy' lists 1 parameters, the wasm function takes 4");
  Bytes unknown = concat({Bytes{1}, cstring("daxpy"), Bytes{0}});
  EXPECT_EQ(error_of(unknown), "parameter metadata for kernel 'daxpy': the module exports no such function");
  EXPECT_EQ(error_of(concat({saxpy_record(), saxpy_record()})), "parameter metadata for kernel 'saxpy' appears twice");
  EXPECT_NE(error_of(Bytes{1, 's'}).find("truncated"), std::string::npos);
  // A handle is an i32: in place of the f32 it is refused, in place of an i32 pointer accepted.
  Bytes handle_for_float = concat(
      {Bytes{1}, cstring("saxpy"), Bytes{4}, param(0, 4, 4, "i", "int", ""), param(4, 4, 4, "a", "wasmgpu_image", ""),
       param(3, 4, 4, "x", "const float *", "float"), param(2, 4, 4, "y", "float *", "float")});
  EXPECT_EQ(error_of(handle_for_float),
            "parameter metadata for kernel 'saxpy', parameter 1 (wasmgpu_image a): the wasm function takes f32 "
            "there, not i32");
  Bytes handle_for_pointer =
      concat({Bytes{1}, cstring("saxpy"), Bytes{4}, param(0, 4, 4, "i", "int", ""), param(1, 4, 4, "a", "float", ""),
              param(5, 4, 4, "x", "wasmgpu_sampler", ""), param(4, 4, 4, "y", "wasmgpu_image", "")});
  EXPECT_EQ(error_of(handle_for_pointer), "(accepted)");
}

}  // namespace
}  // namespace wasmgpu::wasm
