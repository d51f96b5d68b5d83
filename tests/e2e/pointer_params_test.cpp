// The pointer-parameter fast path (docs/compiler.md, "Pointer parameters")
// keeps wasm's semantics: pointers into the middle of a buffer, negative
// offsets and misaligned pointers give the native results; an access that
// leaves the parameter's buffer into the guard gap traps; one that lands in
// another mapped buffer reads that buffer, as wasm says. At -O2 the kernels'
// accesses take the fast path (checked through KernelInfo); at -O0 they go
// through the stack and the general path, and must agree.
#include <cstring>
#include <string>

#include "e2e_support.h"

extern "C" {
void copy32_at(int i, const int32_t* src, int32_t* dst, int shift);
void copy64_at(int i, const int64_t* src, int64_t* dst, int shift);
void copy8_at(int i, const uint8_t* src, uint8_t* dst, int shift);
struct pair {
  float a, b;
  int16_t tag;
  int16_t pad;
};
void swap_pairs(int i, const struct pair* in, struct pair* out);
void sum4(int i, const uint32_t* src, uint32_t* dst);
void sum4_at(int i, const uint32_t* src, uint32_t* dst, int shift);
void sum4_strided(int i, const uint32_t* src, uint32_t* dst, int stride);
void spread4_at(int i, const uint32_t* src, uint32_t* dst, int shift);
void mix_at(int i, const uint32_t* a, const uint32_t* b, uint32_t* out, int shift);
void gather_many(int i, const int32_t* p0, const int32_t* p1, const int32_t* p2, const int32_t* p3, const int32_t* p4,
                 const int32_t* p5, const int32_t* p6, double scale, long long offset, float bias, int64_t* out);
}

namespace wasmgpu::e2e {
namespace {

class PointerParams : public EndToEnd {
 protected:
  // At -O2 every access of these kernels is on the pointer-parameter path.
  void expect_fast(const std::string& name) {
    const spirv::AccessPathCounts& paths = kernel("pointer_params", name).info().memory_access_paths;
    if (std::string(GetParam()).starts_with("O2")) {
      EXPECT_EQ(paths.translated, 0u) << name;
      EXPECT_GT(paths.parameter + paths.parameter_unaligned, 0u) << name;
    }
  }
};

std::vector<int32_t> ints(size_t n, uint32_t seed) {
  std::vector<int32_t> values;
  for (uint32_t w : random_words(n, seed)) values.push_back(int32_t(w));
  return values;
}

TEST_P(PointerParams, PointersIntoTheMiddleOfABufferWithNegativeOffsets) {
  expect_fast("copy32_at");
  const uint32_t n = 300, middle = 128;
  std::vector<int32_t> src = ints(1024, 1);
  runtime::Buffer sb = buffer_with(src), out = buffer(4 * n);
  const uint32_t src_at = *sb.wasm_address() + 4 * middle;
  for (int shift : {0, -128, -100, 7, 1024 - 128 - int(n)}) {
    Status launched = kernel("pointer_params", "copy32_at").launch(n, 64, {src_at, out, shift});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    std::vector<int32_t> native(n);
    for (uint32_t i = 0; i < n; ++i) copy32_at(int(i), src.data() + middle, native.data(), shift);
    EXPECT_TRUE(same_values(read<int32_t>(out, n), native)) << "shift " << shift;
  }
  // The destination in the middle of a buffer, the rest untouched.
  runtime::Buffer dst = buffer(4 * 2 * n);
  ASSERT_TRUE(dst.fill(0x5a5a5a5a).ok());
  Status launched = kernel("pointer_params", "copy32_at").launch(n, 64, {sb, *dst.wasm_address() + 4 * (n / 2), 0});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int32_t> expected(2 * n, 0x5a5a5a5a);
  for (uint32_t i = 0; i < n; ++i) expected[n / 2 + i] = src[i];
  EXPECT_TRUE(same_values(read<int32_t>(dst, 2 * n), expected));
}

TEST_P(PointerParams, WalkingOffTheBufferIntoTheGuardGapTraps) {
  expect_fast("copy64_at");
  const uint32_t n = 64;
  std::vector<uint64_t> words = random_dwords(n, 2);
  runtime::Buffer sb = buffer_with(words), out = buffer(8 * n);
  // Invocations 62 and 63 read the 8 bytes just past the end, and beyond.
  Status launched = kernel("pointer_params", "copy64_at").launch(n, 64, {sb, out, 2});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 62 (2 invocations trapped)"),
            std::string::npos)
      << launched.error().message;
  // Below the buffer's start.
  launched = kernel("pointer_params", "copy64_at").launch(n, 64, {sb, out, -1});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 0 (1 invocation trapped)"),
            std::string::npos)
      << launched.error().message;
  // A store past the end of the destination traps and writes nothing there.
  runtime::Buffer small = buffer(8 * (n - 1));
  launched = kernel("pointer_params", "copy64_at").launch(n, 64, {sb, small, 0});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 63 (1 invocation trapped)"),
            std::string::npos)
      << launched.error().message;
}

TEST_P(PointerParams, AnAccessThatLeavesTheBufferIntoAnotherBufferReadsThatBuffer) {
  expect_fast("copy32_at");
  const uint32_t n = 128;
  std::vector<int32_t> a = ints(n, 3), b = ints(n, 4);
  runtime::Buffer ab = buffer_with(a), bb = buffer_with(b), out = buffer(4 * n);
  const int64_t distance = int64_t(*bb.wasm_address()) - int64_t(*ab.wasm_address());
  ASSERT_EQ(distance % 4, 0);
  // src is a; src[i + shift] is b[i + 5] for every i below n - 5, past b's end above.
  const int shift = int(distance / 4) + 5;
  Status launched = kernel("pointer_params", "copy32_at").launch(n - 5, 64, {ab, out, shift});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int32_t> expected(b.begin() + 5, b.end());
  EXPECT_TRUE(same_values(read<int32_t>(out, n - 5), expected));
}

TEST_P(PointerParams, MisalignedPointerArgumentsGiveTheNativeBytes) {
  expect_fast("copy32_at");
  expect_fast("copy64_at");
  expect_fast("copy8_at");
  const uint32_t n = 100;
  std::vector<uint8_t> bytes;
  for (uint32_t w : random_words(3 * n, 5))
    for (int k = 0; k < 4; ++k) bytes.push_back(uint8_t(w >> (8 * k)));
  runtime::Buffer sb = buffer_with(bytes);
  const uint32_t base = *sb.wasm_address();
  for (uint32_t misalign : {1u, 2u, 3u, 4u, 6u}) {
    runtime::Buffer out = buffer(8 * n + 16);
    ASSERT_TRUE(out.fill(0).ok());
    const uint32_t dst_at = *out.wasm_address() + (misalign ^ 1u);  // another misalignment
    std::vector<uint8_t> native(8 * n + 16, 0);
    auto check = [&](const char* name, int shift, size_t width) {
      Status launched = kernel("pointer_params", name).launch(n, 64, {base + misalign, dst_at, shift});
      ASSERT_TRUE(launched.ok()) << name << ": " << launched.error().message;
      std::fill(native.begin(), native.end(), 0);
      for (uint32_t i = 0; i < n; ++i) {
        uint8_t* d = native.data() + (misalign ^ 1u);
        const uint8_t* s = bytes.data() + misalign;
        std::memcpy(d + width * i, s + width * (i + shift), width);
      }
      EXPECT_TRUE(same_values(read<uint8_t>(out, native.size()), native)) << name << " misaligned by " << misalign;
      ASSERT_TRUE(out.fill(0).ok());
    };
    check("copy32_at", 3, 4);
    check("copy64_at", 1, 8);
    check("copy8_at", 5, 1);
  }
}

TEST_P(PointerParams, StructsThroughPointersMatchNativeCode) {
  expect_fast("swap_pairs");
  const uint32_t n = 500;
  std::vector<pair> in(n);
  std::vector<uint32_t> words = random_words(3 * n, 6);
  for (uint32_t i = 0; i < n; ++i) {
    std::memcpy(&in[i].a, &words[3 * i], 4);
    std::memcpy(&in[i].b, &words[3 * i + 1], 4);
    in[i].tag = int16_t(words[3 * i + 2]);
    in[i].pad = int16_t(words[3 * i + 2] >> 16);
  }
  runtime::Buffer ib = buffer_with(in), ob = buffer(sizeof(pair) * n);
  Status launched = kernel("pointer_params", "swap_pairs").launch(n, 64, {ib, ob});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<pair> native(n);
  for (uint32_t i = 0; i < n; ++i) swap_pairs(int(i), in.data(), native.data());
  std::vector<uint32_t> gpu_words(3 * n), native_words(3 * n);
  std::vector<pair> gpu = read<pair>(ob, n);
  std::memcpy(gpu_words.data(), gpu.data(), 12 * n);
  std::memcpy(native_words.data(), native.data(), 12 * n);
  EXPECT_TRUE(same_values(gpu_words, native_words, 3));
}

// Load groups (docs/compiler.md): four words behind one range check, one
// vector load when aligned. Inside the buffer they give the native sums; a
// group that straddles an end of the buffer traps exactly where a member
// leaves it; one that lies in another buffer reads that buffer.
TEST_P(PointerParams, GroupedLoadsMatchNativeCodeAndTrapWhereAMemberLeavesTheBuffer) {
  expect_fast("sum4");
  expect_fast("sum4_at");
  const uint32_t n = 200;
  std::vector<uint32_t> src = random_words(4 * n, 7);
  runtime::Buffer sb = buffer_with(src), out = buffer(4 * n);
  // The first `count` invocations on the host: only those whose groups lie
  // inside `words` (the host's reads are not checked).
  auto native = [&](int shift, const std::vector<uint32_t>& words, uint32_t count) {
    std::vector<uint32_t> result(count);
    for (uint32_t i = 0; i < count; ++i)
      if (shift == INT32_MIN)
        sum4(int(i), words.data(), result.data());
      else
        sum4_at(int(i), words.data(), result.data(), shift);
    return result;
  };
  Status launched = kernel("pointer_params", "sum4").launch(n, 64, {sb, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_TRUE(same_values(read<uint32_t>(out, n), native(INT32_MIN, src, n)));
  // Unaligned starts inside the buffer: the groups' values are the native ones.
  for (int shift : {0, 1, 2, 3}) {
    launched = kernel("pointer_params", "sum4_at").launch(n - 1, 64, {sb, out, shift});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    EXPECT_TRUE(same_values(read<uint32_t>(out, n - 1), native(shift, src, n - 1))) << "shift " << shift;
  }
  // The last invocation's p[1..3] (shift 2: p[2], p[3]) lie past the end.
  for (int shift : {1, 2}) {
    launched = kernel("pointer_params", "sum4_at").launch(n, 64, {sb, out, shift});
    ASSERT_FALSE(launched.ok());
    EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 199 (1 invocation trapped)"),
              std::string::npos)
        << launched.error().message;
  }
  // Invocation 0's p[0] lies below the start.
  launched = kernel("pointer_params", "sum4_at").launch(n, 64, {*sb.wasm_address() + 4, out, -2});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 0 (1 invocation trapped)"),
            std::string::npos)
      << launched.error().message;
  // Every group of src + shift lies in another buffer: its words are read.
  std::vector<uint32_t> other = random_words(4 * n, 8);
  runtime::Buffer ob = buffer_with(other);
  const int64_t distance = int64_t(*ob.wasm_address()) - int64_t(*sb.wasm_address());
  ASSERT_EQ(distance % 4, 0);
  launched = kernel("pointer_params", "sum4_at").launch(n - 1, 64, {sb, out, int(distance / 4) + 2});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_TRUE(same_values(read<uint32_t>(out, n - 1), native(2, other, n - 1)));
}

// Four words whose 16-alignment only the launch tells (src + stride * i):
// every invocation aligned (stride 4, 8), half of them (2), a quarter (1),
// none (a misaligned start).
TEST_P(PointerParams, GroupsAlignedAtRunTimeMatchNativeCode) {
  expect_fast("sum4_strided");
  const uint32_t n = 100;
  std::vector<uint32_t> src = random_words(8 * n + 4, 10);
  runtime::Buffer sb = buffer_with(src), out = buffer(4 * n);
  for (int stride : {4, 8, 2, 1, 5}) {
    for (uint32_t start : {0u, 1u}) {
      Status launched =
          kernel("pointer_params", "sum4_strided").launch(n, 64, {*sb.wasm_address() + 4 * start, out, stride});
      ASSERT_TRUE(launched.ok()) << launched.error().message;
      std::vector<uint32_t> native(n);
      for (uint32_t i = 0; i < n; ++i) sum4_strided(int(i), src.data() + start, native.data(), stride);
      EXPECT_TRUE(same_values(read<uint32_t>(out, n), native)) << "stride " << stride << ", start " << start;
    }
  }
}

// Store groups: four words behind one check. Inside the buffer (at any
// alignment) every word is written; where the last invocation's group
// straddles the end it traps, and every other invocation's words are written.
TEST_P(PointerParams, GroupedStoresMatchNativeCodeAndTrapAtTheBuffersEnd) {
  expect_fast("spread4_at");
  const uint32_t n = 150;
  std::vector<uint32_t> src = random_words(n, 9);
  runtime::Buffer sb = buffer_with(src), out = buffer(16 * n);
  for (int shift : {0, 1, 3}) {
    ASSERT_TRUE(out.fill(0).ok());
    Status launched = kernel("pointer_params", "spread4_at").launch(n - 1, 64, {sb, out, shift});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    std::vector<uint32_t> native(4 * n, 0);
    for (uint32_t i = 0; i < n - 1; ++i) spread4_at(int(i), src.data(), native.data(), shift);
    EXPECT_TRUE(same_values(read<uint32_t>(out, 4 * n), native)) << "shift " << shift;
  }
  ASSERT_TRUE(out.fill(0).ok());
  Status launched = kernel("pointer_params", "spread4_at").launch(n, 64, {sb, out, 2});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 149 (1 invocation trapped)"),
            std::string::npos)
      << launched.error().message;
  std::vector<uint32_t> native(4 * n + 8, 0), got = read<uint32_t>(out, 4 * n);
  for (uint32_t i = 0; i < n - 1; ++i) spread4_at(int(i), src.data(), native.data(), 2);
  native.resize(4 * n - 2);  // the trapping invocation's words start here
  got.resize(4 * n - 2);
  EXPECT_TRUE(same_values(got, native));
}

// Eleven arguments: the push constants hold the 4-byte values and the first
// ParamRegions; the rest, and the 8-byte values, are read from the LaunchBlock.
TEST_P(PointerParams, ArgumentsBeyondThePushConstantsComeFromTheLaunchBlock) {
  expect_fast("gather_many");
  const uint32_t n = 200;
  std::vector<std::vector<int32_t>> inputs;
  std::vector<runtime::Buffer> buffers;
  for (uint32_t k = 0; k < 7; ++k) {
    inputs.push_back(ints(n, 30 + k));
    for (int32_t& v : inputs.back()) v >>= 8;
    buffers.push_back(buffer_with(inputs.back()));
  }
  runtime::Buffer out = buffer(8 * n);
  const double scale = 0.75;
  const long long offset = -(1LL << 40) + 3;
  const float bias = 2.5f;
  Status launched = kernel("pointer_params", "gather_many")
                        .launch(n, 64,
                                {buffers[0], buffers[1], buffers[2], buffers[3], buffers[4], buffers[5], buffers[6],
                                 scale, int64_t(offset), bias, out});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  std::vector<int64_t> native(n);
  for (uint32_t i = 0; i < n; ++i)
    gather_many(int(i), inputs[0].data(), inputs[1].data(), inputs[2].data(), inputs[3].data(), inputs[4].data(),
                inputs[5].data(), inputs[6].data(), scale, offset, bias, native.data());
  EXPECT_TRUE(same_values(read<int64_t>(out, n), native));
}

// Loads from two arguments and arithmetic on both values before the store:
// when either leaves its buffer, the general path traps at that invocation.
TEST_P(PointerParams, LoadsFromTwoArgumentsMatchNativeCodeAndTrapInOrder) {
  expect_fast("mix_at");
  const uint32_t n = 256;
  std::vector<uint32_t> a = random_words(n, 31), b = random_words(n, 32);
  runtime::Buffer ab = buffer_with(a), bb = buffer_with(b), out = buffer(4 * n);
  for (int shift : {0, 1, 3}) {
    const uint32_t count = n - uint32_t(shift);
    Status launched = kernel("pointer_params", "mix_at").launch(count, 64, {ab, bb, out, shift});
    ASSERT_TRUE(launched.ok()) << launched.error().message;
    std::vector<uint32_t> expected(count);
    for (uint32_t i = 0; i < count; ++i) mix_at(int(i), a.data(), b.data(), expected.data(), shift);
    EXPECT_TRUE(same_values(read<uint32_t>(out, count), expected)) << "shift " << shift;
  }
  // The last invocation's a[i + 1] lies past the end of a.
  Status launched = kernel("pointer_params", "mix_at").launch(n, 64, {ab, bb, out, 1});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 255 (1 invocation trapped)"),
            std::string::npos)
      << launched.error().message;
  // Invocation 0's a[-1] lies below the start; every other one is in bounds.
  launched = kernel("pointer_params", "mix_at").launch(n, 64, {ab, bb, out, -1});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 0 (1 invocation trapped)"),
            std::string::npos)
      << launched.error().message;
  // The other load: the last b[i] lies past the end of b.
  launched = kernel("pointer_params", "mix_at").launch(n, 64, {ab, *bb.wasm_address() + 4, out, 0});
  ASSERT_FALSE(launched.ok());
  EXPECT_NE(launched.error().message.find("out of bounds memory access at invocation 255 (1 invocation trapped)"),
            std::string::npos)
      << launched.error().message;
}

INSTANTIATE_TEST_SUITE_P(OptLevels, PointerParams, ::testing::ValuesIn(kOptLevels),
                         [](const auto& info) { return std::string(info.param); });
// The same kernels compiled in fast float mode: the same values and traps.
INSTANTIATE_TEST_SUITE_P(FastMode, PointerParams, ::testing::ValuesIn(kFastModeLevels),
                         [](const auto&) { return std::string("O2Fast"); });

}  // namespace
}  // namespace wasmgpu::e2e
