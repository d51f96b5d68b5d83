// Modules and kernel calls through the public API: interfaces from the
// metadata, one-line launches checked against them, traps.
#include "wasmgpu/module.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "api/test_support.h"

namespace wasmgpu {
namespace {

using testing::ApiTest;
using testing::expect_exception;
using testing::kernel_path;

std::vector<float> iota_floats(size_t n, float start) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = start + 0.25f * float(i);
  return values;
}

TEST_F(ApiTest, SaxpyIsAOneLiner) {
  const size_t n = 1000;
  const std::vector<float> xs = iota_floats(n, 1.0f), ys = iota_floats(n, -3.0f);
  Buffer<float> x = device->upload(xs);
  Buffer<float> y = device->upload(ys);
  Kernel saxpy = module->kernel("saxpy");
  saxpy(n, 2.0f, x, y);
  const std::vector<float> result = y.read();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(result[i], 2.0f * xs[i] + ys[i]) << i;
  // Named arguments, in any order.
  saxpy(n, arg("y", y), arg("x", x), arg("a", -1.0f));
  const std::vector<float> again = y.read();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(again[i], result[i] - xs[i]) << i;
  // The dynamic form, with a workgroup size.
  const Argument args[] = {Argument(0.5f), Argument(x), Argument(y)};
  saxpy.launch(Launch::invocations(uint32_t(n), 32), args);
  const std::vector<float> third = y.read();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(third[i], 0.5f * xs[i] + again[i]) << i;
}

TEST_F(ApiTest, InterfacesComeFromTheMetadata) {
  const std::vector<KernelInterface> kernels = module->kernels();
  const KernelInterface* saxpy = nullptr;
  for (const KernelInterface& k : kernels)
    if (k.name == "saxpy") saxpy = &k;
  ASSERT_NE(saxpy, nullptr);
  EXPECT_EQ(saxpy->source, KernelSource::Wasm);
  ASSERT_EQ(saxpy->params.size(), 3u);
  EXPECT_EQ(saxpy->params[0].name, "a");
  EXPECT_EQ(saxpy->params[0].kind, ParamKind::Scalar);
  EXPECT_EQ(saxpy->params[0].scalar, ScalarType::F32);
  EXPECT_EQ(saxpy->params[1].name, "x");
  EXPECT_EQ(saxpy->params[1].kind, ParamKind::Buffer);
  EXPECT_EQ(saxpy->params[1].element_type, "float");
  EXPECT_EQ(saxpy->params[1].element_size, 4u);
  EXPECT_FALSE(saxpy->params[1].writable);
  EXPECT_TRUE(saxpy->params[2].writable);
  const KernelInterface wide = module->kernel("wide").interface();
  ASSERT_EQ(wide.params.size(), 4u);
  EXPECT_EQ(wide.params[0].scalar, ScalarType::I64);
  EXPECT_EQ(wide.params[1].scalar, ScalarType::F64);
  EXPECT_EQ(wide.params[2].scalar, ScalarType::U32);
  EXPECT_EQ(wide.params[3].element_size, 8u);

  // Without metadata: the signature only.
  Module plain = device->load_file(kernel_path("plain"));
  const KernelInterface copy = plain.kernel("plain_copy").interface();
  ASSERT_EQ(copy.params.size(), 3u);
  EXPECT_EQ(copy.params[0].name, "arg1");
  EXPECT_EQ(copy.params[0].kind, ParamKind::Scalar);
  EXPECT_EQ(copy.params[0].scalar, ScalarType::I32);
}

TEST_F(ApiTest, WrongArgumentsNameTheParameter) {
  Kernel saxpy = module->kernel("saxpy");
  Buffer<float> x = device->buffer<float>(16);
  Buffer<float> y = device->buffer<float>(16);
  Exception count = expect_exception([&] { saxpy(16, 2.0f, x); });
  EXPECT_EQ(count.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(count.what(),
               "kernel 'saxpy' takes 3 argument(s) after the launch shape (a: f32 (float), x: a Buffer "
               "(read-only) of float (4-byte elements), y: a Buffer of float (4-byte elements)), but 2 "
               "were given: no argument for 'y'");
  Exception extra = expect_exception([&] { saxpy(16, 2.0f, x, y, y, 3); });
  EXPECT_STREQ(extra.what(),
               "kernel 'saxpy' takes 3 argument(s) after the launch shape (a: f32 (float), x: a Buffer "
               "(read-only) of float (4-byte elements), y: a Buffer of float (4-byte elements)), but 5 "
               "were given: arguments 4 to 5 match no parameter");
  Exception none = expect_exception([&] { saxpy(16); });
  EXPECT_STREQ(none.what(),
               "kernel 'saxpy' takes 3 argument(s) after the launch shape (a: f32 (float), x: a Buffer "
               "(read-only) of float (4-byte elements), y: a Buffer of float (4-byte elements)), but 0 "
               "were given: no argument for 'a', 'x', 'y'");
  Exception type = expect_exception([&] { saxpy(16, 2.0, x, y); });
  EXPECT_EQ(type.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(type.what(),
               "kernel 'saxpy', parameter 'a' (argument 1 of 3): expected f32 (float), but double 2 was given");
  Exception scalar_for_buffer = expect_exception([&] { saxpy(16, 2.0f, 7, y); });
  EXPECT_STREQ(scalar_for_buffer.what(),
               "kernel 'saxpy', parameter 'x' (argument 2 of 3): expected a Buffer (read-only) of float "
               "(4-byte elements), but int32 7 was given");
  Buffer<double> doubles = device->buffer<double>(16);
  Exception element = expect_exception([&] { saxpy(16, 2.0f, x, doubles); });
  EXPECT_EQ(element.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(element.what(),
               "kernel 'saxpy', parameter 'y' (argument 3 of 3): expected a Buffer of float (4-byte elements), "
               "but a Buffer of 16 8-byte elements was given (element sizes differ)");
  Exception unknown = expect_exception([&] { saxpy(16, arg("a", 1.0f), arg("x", x), arg("z", y)); });
  EXPECT_EQ(unknown.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(unknown.what(), "kernel 'saxpy' has no parameter named 'z' (its parameters: 'a', 'x', 'y')");
  Exception mixed = expect_exception([&] { saxpy(16, 1.0f, arg("x", x), y); });
  EXPECT_STREQ(mixed.what(), "kernel 'saxpy': 1 of the 3 arguments are named; name all of them or none");
  Exception missing = expect_exception([&] { saxpy(16, arg("a", 1.0f), arg("x", x)); });
  EXPECT_NE(std::string(missing.what()).find("no argument for parameter(s) 'y'"), std::string::npos);
  Exception wide = expect_exception([&] { module->kernel("scale")(4, y, int64_t(3)); });
  EXPECT_STREQ(wide.what(),
               "kernel 'scale', parameter 'factor' (argument 2 of 2): expected f32 (float), but int64 3 was given");
  Exception negative = expect_exception([&] { saxpy(-1, 1.0f, x, y); });
  EXPECT_EQ(negative.kind(), ErrorKind::InvalidArgument);
  Buffer<float> moved = std::move(x);
  Exception moved_from = expect_exception([&] { saxpy(16, 1.0f, x, y); });
  EXPECT_EQ(moved_from.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(moved_from.what(),
               "kernel 'saxpy', parameter 'x' (argument 2 of 3): the Buffer was moved from or destroyed");
  // Nothing ran.
  EXPECT_EQ(y.read(), std::vector<float>(16, 0.0f));
}

TEST_F(ApiTest, ScalarsOfEveryWidthAndStructElements) {
  const uint32_t count = 50;
  Buffer<double> out = device->buffer<double>(64);
  // int for the u32 count, an int64 offset, a float widened to the f64 factor.
  module->kernel("wide")(64, int64_t(1) << 40, 0.5f, count, out);
  const std::vector<double> values = out.read();
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(values[i], i < count ? double((int64_t(1) << 40) + i) * 0.5 : 0.0) << i;

  struct Pair {
    float first, second;
  };
  std::vector<Pair> pairs(10);
  for (int i = 0; i < 10; ++i) pairs[i] = {float(i), float(-i)};
  Buffer<Pair> buffer = device->upload(pairs);
  module->kernel("swap_pairs")(10, buffer);
  const std::vector<Pair> swapped = buffer.read();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(swapped[i].first, float(-i));
    EXPECT_EQ(swapped[i].second, float(i));
  }
  Buffer<float> floats = device->buffer<float>(20);
  Exception wrong = expect_exception([&] { module->kernel("swap_pairs")(10, floats); });
  EXPECT_STREQ(wrong.what(),
               "kernel 'swap_pairs', parameter 'pairs' (argument 1 of 1): expected a Buffer of struct pair "
               "(8-byte elements), but a Buffer of 20 4-byte elements was given (element sizes differ)");
}

TEST_F(ApiTest, PlainWasmTakesBuffersForI32Parameters) {
  Module plain = device->load_file(kernel_path("plain"));
  std::vector<int> input(33);
  for (int i = 0; i < 33; ++i) input[i] = i * i;
  Buffer<int> src = device->upload(input);
  Buffer<int> dst = device->buffer<int>(33);
  plain.kernel("plain_copy")(33, src, dst, 5);
  const std::vector<int> out = dst.read();
  for (int i = 0; i < 33; ++i) EXPECT_EQ(out[i], input[i] + 5);
}

TEST_F(ApiTest, TrapsThrowTrapError) {
  std::vector<int> data(100, 7);
  data[61] = 0;
  data[83] = 0;
  Buffer<int> buffer = device->upload(data);
  try {
    module->kernel("divide")(100, buffer, 700);
    FAIL() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_STREQ(trap.what(),
                 "kernel 'divide' trapped: integer divide by zero at invocation 61 (2 invocations trapped)");
    EXPECT_EQ(trap.kind(), ErrorKind::Trap);
    EXPECT_EQ(trap.kernel(), "divide");
    EXPECT_EQ(trap.trap(), "integer divide by zero");
    EXPECT_EQ(trap.invocation(), 61u);
    EXPECT_EQ(trap.trapped_invocations(), 2u);
    EXPECT_EQ(trap.launch_index(), 0u);
  }
  // The invocations that did not trap ran.
  EXPECT_EQ(buffer.read()[0], 100);
}

TEST_F(ApiTest, LaunchWithItsOwnTimeoutRunsAndTrapsAsTheDirectCall) {
  Buffer<int> buffer = device->upload(std::vector<int>{2, 0, 5, 0});
  Kernel divide = module->kernel("divide");
  const Argument args[] = {Argument(buffer), Argument(10)};
  Exception trap = expect_exception([&] { divide.launch(4, args, std::chrono::seconds(60)); });
  EXPECT_EQ(trap.kind(), ErrorKind::Trap);
  EXPECT_STREQ(trap.what(), "kernel 'divide' trapped: integer divide by zero at invocation 1 (2 invocations trapped)");
  buffer.write(std::vector<int>{2, 1, 5, 10});
  divide.launch(4, args, std::chrono::seconds(60));
  EXPECT_EQ(buffer.read(), (std::vector<int>{5, 10, 2, 1}));
}

// A launch larger than its buffers: the accesses past the end trap (out of
// bounds), they never touch other memory.
TEST_F(ApiTest, LaunchBeyondTheBufferTraps) {
  Buffer<float> x = device->buffer<float>(100);
  Buffer<float> y = device->buffer<float>(100);
  try {
    module->kernel("saxpy")(5000, 1.0f, x, y);
    FAIL() << "no trap";
  } catch (const TrapError& trap) {
    EXPECT_EQ(trap.trap(), "out of bounds memory access");
    EXPECT_GE(trap.invocation(), 100u);
    EXPECT_NE(std::string(trap.what()).find("kernel 'saxpy' trapped: out of bounds memory access at invocation "),
              std::string::npos)
        << trap.what();
  }
}

TEST_F(ApiTest, LoadErrorsAreReported) {
  const std::vector<uint8_t> junk = {1, 2, 3, 4, 5};
  Exception bad = expect_exception([&] { device->load(junk); });
  EXPECT_EQ(bad.kind(), ErrorKind::Compile);
  EXPECT_NE(std::string(bad.what()).find("neither a wasm module"), std::string::npos);
  const std::vector<uint8_t> truncated = {0, 'a', 's', 'm', 1, 0};
  Exception decode = expect_exception([&] { device->load(truncated); });
  EXPECT_EQ(decode.kind(), ErrorKind::Compile);
  Exception missing = expect_exception([&] { device->load_file("/nonexistent/kernel.wasm"); });
  EXPECT_EQ(missing.kind(), ErrorKind::Io);
  EXPECT_STREQ(missing.what(), "cannot open '/nonexistent/kernel.wasm'");
  Exception unknown = expect_exception([&] { module->kernel("sax"); });
  EXPECT_EQ(unknown.kind(), ErrorKind::NotFound);
  EXPECT_NE(std::string(unknown.what()).find("the module has no kernel named 'sax' (its kernels: 'saxpy', 'scale'"),
            std::string::npos)
      << unknown.what();
}

TEST_F(ApiTest, MovedFromModuleIsAnError) {
  Module moved = std::move(*module);
  Exception kernel = expect_exception([&] { module->kernel("saxpy"); });
  EXPECT_EQ(kernel.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(kernel.what(), "use of a moved-from Module");
  EXPECT_FALSE(module->valid());
  EXPECT_EQ(moved.kernel("saxpy").name(), "saxpy");
}

// A Kernel handle keeps its module alive.
TEST_F(ApiTest, KernelOutlivesItsModuleHandle) {
  std::optional<Kernel> scale;
  {
    Module own = device->load_file(kernel_path("kernels"));
    scale.emplace(own.kernel("scale"));
  }
  Buffer<float> data = device->upload(std::vector<float>{1, 2, 3});
  (*scale)(3, data, 4.0f);
  EXPECT_EQ(data.read(), (std::vector<float>{4, 8, 12}));
}

}  // namespace
}  // namespace wasmgpu
