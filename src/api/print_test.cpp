// Kernel output through the public API: printf, puts, putchar and write()
// from C kernels (testdata/print.c) formatted on the host, the print
// buffer's overflow count, and assert and abort in TrapError; and the host
// formatter on records made by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "api/print_ring.h"
#include "api/test_support.h"

namespace wasmgpu {
namespace {

using testing::expect_exception;
using testing::kernel_path;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string c_format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string c_format(const char* format, ...) {
  char buffer[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buffer, sizeof buffer, format, ap);
  va_end(ap);
  return buffer;
}

// The line of testdata/print.c that holds `text` (1-based).
// The line (and the 1-based column) of the first line of a source file
// with `text` in it, the file given from the source tree's root (__FILE__
// may be relative to the build, as ccache's base_dir makes it).
struct SourcePosition {
  unsigned line = 0, column = 0;
};
SourcePosition source_position(const std::string& text, const std::string& file = "src/api/testdata/print.c") {
  const std::string source = std::string(WASMGPU_INCLUDE_DIR) + "/../" + file;
  std::ifstream in(source);
  std::string line;
  for (unsigned number = 1; std::getline(in, line); ++number)
    if (size_t at = line.find(text); at != std::string::npos) return {number, unsigned(at + 1)};
  ADD_FAILURE() << "no line with " << text << " in " << source;
  return {};
}
unsigned source_line(const std::string& text) { return source_position(text).line; }

class PrintTest : public testing::ValidatedTest {
 protected:
  void SetUp() override {
    ValidatedTest::SetUp();
    device.emplace(Device::open());
    device->set_output_handler([this](const KernelOutput& output) {
      ++deliveries;
      text += output.text;
      error_text += output.error_text;
      dropped_records += output.dropped_records;
      dropped_bytes += output.dropped_bytes;
      buffer_bytes = output.buffer_bytes;
    });
  }
  void TearDown() override {
    device.reset();
    ValidatedTest::TearDown();
  }
  Module load(const ModuleOptions& options = {}) { return device->load_file(kernel_path("print"), options); }

  std::optional<Device> device;
  int deliveries = 0;
  std::string text, error_text;
  uint64_t dropped_records = 0, dropped_bytes = 0, buffer_bytes = 0;
};

// The text of print_values's lines for invocation i, by the host's printf.
std::vector<std::string> expected_values(unsigned i) {
  std::vector<std::string> lines = {
      c_format("inv %d: u=%u x=%x X=%X o=%o c=%c s=%s [%5s] [%-6s|] f=%f g=%g e=%.2e w=[%8.3f] [%-4d|] [%04d] [%+d] "
               "ll=%lld llu=%llu p=%%",
               (int)i, i * 3u, 255u + i, 0xabcu + i, 8u + i, 'a' + (int)i, "text", "ab", "cd", i * 0.5, i * 1.25,
               1234.5 + i, 3.14159 * i, (int)i, (int)i, (int)i, -(1LL << 40) - (long long)i,
               18446744073709551615ull - i),
      c_format("float %.3f, width from an argument [%*d], precision [%.*f]", double(0.1f * float(i)), 5, (int)i, 2,
               2.71828),
      "puts from a kernel"};
  if (i == 0) lines.push_back("<A>");
  return lines;
}

TEST_F(PrintTest, PrintfPutsAndPutcharFromSeveralInvocations) {
  Module module = load();
  module.kernel("print_values")(5);
  EXPECT_EQ(deliveries, 1);
  std::vector<std::string> lines = lines_of(text);
  ASSERT_EQ(lines.size(), 5u * 3 + 1) << text;
  std::vector<std::string> expected;
  for (unsigned i = 0; i < 5; ++i)
    for (std::string& line : expected_values(i)) expected.push_back(std::move(line));
  std::sort(lines.begin(), lines.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(lines, expected);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(dropped_records, 0u);
  EXPECT_EQ(buffer_bytes, 1u << 20);
  // The putchar calls of invocation 0 kept their order.
  EXPECT_NE(text.find("<A>\n"), std::string::npos) << text;
}

TEST_F(PrintTest, EachLineCanCarryItsInvocation) {
  ModuleOptions options;
  options.print_invocation = true;
  Module module = load(options);
  module.kernel("print_values")(3);
  std::vector<std::string> lines = lines_of(text);
  ASSERT_EQ(lines.size(), 3u * 3 + 1) << text;
  for (unsigned i = 0; i < 3; ++i)
    for (const std::string& line : expected_values(i)) {
      const std::string prefixed = "[" + std::to_string(i) + "] " + line;
      EXPECT_EQ(std::count(lines.begin(), lines.end(), prefixed), 1) << prefixed << "\nin\n" << text;
    }
}

TEST_F(PrintTest, OverflowCountsWhatWasDroppedAndTheNextLaunchStartsEmpty) {
  ModuleOptions options;
  options.print_buffer_bytes = 256;  // 52 words after the header: ten 5-word records
  Module module = load(options);
  Kernel flood = module.kernel("print_flood");
  for (int launch = 0; launch < 2; ++launch) {
    text.clear();
    dropped_records = dropped_bytes = 0;
    flood(100);
    std::vector<std::string> lines = lines_of(text);
    EXPECT_EQ(lines.size(), 10u) << text;
    for (const std::string& line : lines) EXPECT_EQ(line.rfind("flood ", 0), 0u) << line;
    EXPECT_EQ(dropped_records, 90u);
    EXPECT_EQ(dropped_bytes, 90u * 20);
    EXPECT_EQ(buffer_bytes, 256u);
  }
  EXPECT_EQ(deliveries, 2);
}

TEST_F(PrintTest, AFailedAssertTrapsWithItsTextFileLineAndInvocation) {
  Module module = load();
  Buffer<int> out = device->buffer<int>(6);
  try {
    module.kernel("check_not")(6, 3, out);
    FAIL() << "no trap";
  } catch (const TrapError& trap) {
    const std::string reason = trap.reason();
    const std::string tail = "print.c:" + std::to_string(source_line("assert((int)i != bad);")) +
                             ", in function 'check_not') at invocation 3";
    EXPECT_EQ(reason.rfind("assertion failed: (int)i != bad (", 0), 0u) << reason;
    ASSERT_GE(reason.size(), tail.size());
    EXPECT_EQ(reason.substr(reason.size() - tail.size()), tail) << reason;
    EXPECT_EQ(std::string(trap.what()),
              "kernel 'check_not' trapped: unreachable executed at invocation 3 (1 invocation trapped): " + reason);
    EXPECT_EQ(trap.trap(), "unreachable executed");
    EXPECT_EQ(trap.invocation(), 3u);
  }
  EXPECT_EQ(out.read(), (std::vector<int>{2, 2, 2, 1, 2, 2}));
  // The next launch, without a failure, has no reason left over.
  module.kernel("check_not")(6, 99, out);
  EXPECT_EQ(out.read(), (std::vector<int>(6, 2)));
}

// A Rust panic (rust/wasmgpu.rs's panic handler): the trap says where, and,
// in the build with --cfg wasmgpu_panic_message, what.
TEST_F(PrintTest, ARustPanicTrapsWithItsLocationAndInvocation) {
  Module module = device->load_file(kernel_path("rust_panic"));
  Buffer<int> x = device->upload(std::vector<int>{1, 2, 7, 4, 7});
  Buffer<int> y = device->buffer<int>(5);
  y.fill(0);
  const SourcePosition at = source_position("panic!(", "tests/kernels-lang/rust_panic.rs");
  const std::string where =
      "tests/kernels-lang/rust_panic.rs:" + std::to_string(at.line) + ":" + std::to_string(at.column);
  Exception error = expect_exception([&] { module.kernel("checked_double")(5, x, y, 5u, 7); });
  const std::string what = error.what();
  EXPECT_EQ(
      what.rfind(
          "kernel 'checked_double' trapped: unreachable executed at invocation 2 (2 invocations trapped): panicked at ",
          0),
      0u)
      << what;
  // Either panicking invocation may claim the text.
  EXPECT_TRUE(
      what.ends_with(
          where + " (the message shows when the kernel is built with --cfg wasmgpu_panic_message) at invocation 2") ||
      what.ends_with(where +
                     " (the message shows when the kernel is built with --cfg wasmgpu_panic_message) at invocation 4"))
      << what << "\nwanted it to end with " << where;
  const std::vector<int> doubled = y.read();
  EXPECT_EQ(doubled[0], 2);
  EXPECT_EQ(doubled[3], 8);
  // A launch without a panic leaves no text behind.
  Buffer<int> fine = device->upload(std::vector<int>{1, 2, 3});
  module.kernel("checked_double")(3, fine, y, 3u, 7);
  EXPECT_EQ(y.read()[2], 6);
}

TEST_F(PrintTest, AbortTrapsWithItsInvocation) {
  Module module = load();
  Exception e = expect_exception([&] { module.kernel("abort_at")(8, 5); });
  ASSERT_EQ(e.kind(), ErrorKind::Trap);
  EXPECT_STREQ(e.what(),
               "kernel 'abort_at' trapped: unreachable executed at invocation 5 (1 invocation trapped): abort() called "
               "at invocation 5");
}

TEST_F(PrintTest, WriteAndWasiFdWriteToFd1AndFd2GoThroughTheRing) {
  Module module = load();
  module.kernel("write_fds")(3);
  std::vector<std::string> lines = lines_of(text);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines,
            (std::vector<std::string>{"fd_write in two pieces", "fd_write in two pieces", "fd_write in two pieces",
                                      "written to fd 1", "written to fd 1", "written to fd 1"}))
      << text;
  EXPECT_EQ(error_text, "to fd 2\n");
}

TEST_F(PrintTest, AModulesOwnFdWriteImportWritesToTheRing) {
  ModuleOptions options;
  options.print_invocation = true;
  Module module = device->load_file(kernel_path("raw_fd_write"), options);
  Buffer<int> status = device->buffer<int>(3);
  module.kernel("raw_write")(3, status);
  // fd_write returned 0 and wrote 13 bytes; fd 3 is EBADF (8).
  EXPECT_EQ(status.read(), (std::vector<int>(3, 13 * 1000 + 8)));
  EXPECT_EQ(text, "[?] raw fd_write\n[?] raw fd_write\n[?] raw fd_write\n");
  // Full: a record of 8 words does not fit in 4.
  options.print_buffer_bytes = 64;
  Module small = device->load_file(kernel_path("raw_fd_write"), options);
  text.clear();
  small.kernel("raw_write")(3, status);
  EXPECT_EQ(text, "");
  EXPECT_EQ(dropped_records, 3u);
  EXPECT_EQ(dropped_bytes, 3u * 32);
}

TEST_F(PrintTest, APrintfNotTakenPrintsNothing) {
  Module module = load();
  Buffer<int> out = device->buffer<int>(64);
  module.kernel("scale_quiet")(64, out, 7);
  std::vector<int> expected(64);
  for (int i = 0; i < 64; ++i) expected[i] = 2 * i;
  EXPECT_EQ(out.read(), expected);
  EXPECT_EQ(deliveries, 0);
  module.kernel("scale_quiet")(2, out, 12345);
  EXPECT_EQ(deliveries, 1);
  std::vector<std::string> lines = lines_of(text);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"never 0", "never 1"}));
}

TEST_F(PrintTest, AModuleThatNeverPrintsGetsNoPrintBuffer) {
  // plain.c links no printf: nothing is delivered, and nothing is allocated
  // for it (its loading would fail on a device without wasm addresses).
  Module plain = device->load_file(kernel_path("plain"));
  Buffer<int> src = device->upload(std::vector<int>{1, 2});
  Buffer<int> dst = device->buffer<int>(2);
  plain.kernel("plain_copy")(2, src, dst, 1);
  EXPECT_EQ(deliveries, 0);
  std::ifstream in(kernel_path("plain"), std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(detail::find_print_slot(bytes).ring_field.has_value());
}

// ---------------------------------------------------------------- the formatter alone

struct RingBuilder {
  std::vector<uint32_t> words = std::vector<uint32_t>(detail::kPrintRingHeaderWords, 0);
  void record(uint32_t kind, uint32_t invocation, uint32_t a, uint32_t b, std::vector<uint32_t> payload) {
    words.push_back(kind | uint32_t(4 + payload.size()) << 8);
    words.push_back(invocation);
    words.push_back(a);
    words.push_back(b);
    words.insert(words.end(), payload.begin(), payload.end());
  }
  std::vector<uint32_t> finish(uint32_t capacity) {
    words[detail::kPrintRingUsed] = uint32_t(words.size() - detail::kPrintRingHeaderWords);
    words[detail::kPrintRingCapacity] = capacity;
    return words;
  }
};

std::vector<uint8_t> memory_with(uint32_t at, const std::string& text) {
  std::vector<uint8_t> memory(at + text.size() + 1, 0);
  std::memcpy(memory.data() + at, text.data(), text.size());
  return memory;
}

TEST(PrintRingFormat, ArgumentsSitAtTheirWasm32Positions) {
  // A double after an int, with the area at an address that is 4 mod 8: the
  // double is at the next multiple of 8 of the address, not of the offset.
  std::vector<uint8_t> memory = memory_with(100, "%d|%8.3f|%lld|%c\n");
  double value = -2.5;
  uint32_t bits[2];
  std::memcpy(bits, &value, 8);
  const int64_t wide = -5000000000LL;
  uint32_t wide_bits[2];
  std::memcpy(wide_bits, &wide, 8);
  RingBuilder ring;
  // va = 1004: int at 1004, double at 1008, long long at 1016, char at 1024.
  ring.record(1, 7, 100, 1004, {uint32_t(-42), bits[0], bits[1], wide_bits[0], wide_bits[1], 'z'});
  detail::DrainedOutput out = detail::format_print_ring(ring.finish(1000), memory, false);
  EXPECT_EQ(out.text, "-42|  -2.500|-5000000000|z\n");
  out = detail::format_print_ring(ring.finish(1000), memory, true);
  EXPECT_EQ(out.text, "[7] -42|  -2.500|-5000000000|z\n");
}

TEST(PrintRingFormat, StringsOutsideTheStaticDataAreNamedNotRead) {
  std::vector<uint8_t> memory = memory_with(16, "[%s]");
  RingBuilder ring;
  ring.record(1, 0, 16, 2000, {0x10000000});
  EXPECT_EQ(detail::format_print_ring(ring.finish(100), memory, false).text,
            "[(string at 0x10000000, outside the module's static data)]");
}

TEST(PrintRingFormat, TheFillerEndsTheRecordsAndTheDropsAreCounted) {
  std::vector<uint8_t> memory = memory_with(8, "x\n");
  RingBuilder ring;
  ring.record(2, 3, 1, 5, {uint32_t('a' | 'b' << 8 | 'c' << 16 | 'd' << 24), uint32_t('\n')});
  ring.words.push_back(3u << 8);  // the filler: 3 words to the capacity
  ring.words.push_back(0);
  ring.words.push_back(0);
  std::vector<uint32_t> words = ring.finish(9);
  words[detail::kPrintRingUsed] = 40;  // reservations went on past the capacity
  words[detail::kPrintRingDroppedWords] = 34;
  words[detail::kPrintRingDroppedRecords] = 6;
  detail::DrainedOutput out = detail::format_print_ring(words, memory, true);
  EXPECT_EQ(out.text, "[3] abcd\n");
  EXPECT_EQ(out.dropped_records, 6u);
  EXPECT_EQ(out.dropped_bytes, 136u);
}

}  // namespace
}  // namespace wasmgpu
