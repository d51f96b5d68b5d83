// Command buffers through the public API: dependent launches ordered by auto
// barriers (checked by synchronization validation), copies and fills,
// resubmission with new scalars, traps per launch, waiting and polling, and
// the misuse of each.
#include "wasmgpu/command_buffer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "api/impl.h"
#include "api/test_support.h"
#include "runtime/device_state.h"
#include "vulkan/vulkan_device.h"

namespace wasmgpu {
namespace {

using namespace std::chrono_literals;
using testing::ApiTest;
using testing::expect_exception;

// scale(a, 2) ; add(a, b -> c) ; scale(c, 0.5) ; copy c -> d ; fill b:
// each command reads what the one before wrote.
TEST_F(ApiTest, DependentCommandsRunInOrder) {
  const uint32_t n = 256;
  std::vector<float> as(n), bs(n);
  for (uint32_t i = 0; i < n; ++i) {
    as[i] = float(i);
    bs[i] = float(3 * i + 1);
  }
  Buffer<float> a = device->upload(as), b = device->upload(bs);
  Buffer<float> c = device->buffer<float>(n), d = device->buffer<float>(n);
  Kernel scale = module->kernel("scale"), add = module->kernel("add");
  CommandBuffer commands = device->command_buffer();
  EXPECT_TRUE(commands.auto_barriers());
  EXPECT_EQ(commands.launch(scale, n, a, 2.0f).index, 0u);
  EXPECT_EQ(commands.launch(add, n, a, b, c).index, 1u);
  EXPECT_EQ(commands.launch(scale, n, c, 0.5f).index, 2u);
  commands.copy(c, d);
  commands.fill(b, 0x3f800000u);  // 1.0f: after add read b
  EXPECT_EQ(commands.launch_count(), 3u);
  EXPECT_EQ(commands.command_count(), 5u);
  Submission submission = commands.submit();
  submission.wait();
  EXPECT_TRUE(submission.done());
  const std::vector<float> out = d.read(), ones = b.read();
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], (2.0f * as[i] + bs[i]) * 0.5f) << i;
    ASSERT_EQ(ones[i], 1.0f) << i;
  }
}

// Where the auto barriers go: before a command that reads or writes what an
// earlier one wrote, or writes what an earlier one read; nowhere else.
// (Synchronization validation cannot check this: kernels reach buffers
// through device addresses, which it does not track.)
TEST_F(ApiTest, AutoBarriersFollowTheDependencies) {
  const uint32_t n = 64;
  Buffer<float> a = device->upload(std::vector<float>(n, 1.0f));
  Buffer<float> b = device->upload(std::vector<float>(n, 2.0f));
  Buffer<float> c = device->buffer<float>(n), d = device->buffer<float>(n);
  // Launches of one module are ordered (they share its memory); a second
  // instance of the module has its own memory, so only buffers order its
  // launches against the first's.
  Module other = device->load_file(testing::kernel_path("kernels"));
  Kernel scale = module->kernel("scale"), add = module->kernel("add");
  Kernel scale2 = other.kernel("scale"), add2 = other.kernel("add"), saxpy2 = other.kernel("saxpy");
  CommandBuffer commands = device->command_buffer();
  commands.launch(add, n, a, b, c);        // 0: reads a, b; writes c
  commands.launch(saxpy2, n, 1.0f, a, d);  // 1: reads a (after a read), writes d
  commands.launch(scale2, n, b, 2.0f);     // 2: writes b, which 0 read (and other's memory)
  commands.launch(add, n, c, d, a);        // 3: reads c, d, written before the barrier at 2
  commands.copy(a, c);                     // 4: reads a, which 3 wrote
  commands.launch(add2, n, b, b, d);       // 5: reads b, writes d: independent of 4
  commands.fill(c, 0);                     // 6: writes c, which 4 wrote
  commands.launch(scale, n, c, 1.0f);      // 7: writes c, which 6 wrote
  commands.launch(scale, n, d, 1.0f);      // 8: writes d, which 5 wrote; module memory, which 7 wrote
  commands.submit().wait();
  EXPECT_EQ(detail::Access::commands(commands)->auto_barrier_positions, (std::vector<size_t>{2, 4, 6, 7, 8}));
  // a = c + d = (1 + 2) + (1 + 0) = 4; b = 4; d = b + b = 8; c = 0.
  EXPECT_EQ(a.read(), std::vector<float>(n, 4.0f));
  EXPECT_EQ(b.read(), std::vector<float>(n, 4.0f));
  EXPECT_EQ(c.read(), std::vector<float>(n, 0.0f));
  EXPECT_EQ(d.read(), std::vector<float>(n, 8.0f));

  // Off: no barriers but the explicit ones (without them the two writes of
  // `a` may overlap on a GPU: lavapipe runs dispatches in order, NVIDIA not).
  CommandBuffer manual = device->command_buffer();
  manual.set_auto_barriers(false);
  manual.launch(scale, n, a, 2.0f);
  manual.barrier();
  manual.launch(scale, n, a, 2.0f);
  manual.barrier();
  manual.launch(add, n, a, b, c);
  manual.submit().wait();
  EXPECT_TRUE(detail::Access::commands(manual)->auto_barrier_positions.empty());
  EXPECT_EQ(c.read(), std::vector<float>(n, 20.0f));
}

// Launches of one module share its memory: they are ordered like writes.
TEST_F(ApiTest, LaunchesOfOneModuleShareItsMemoryInOrder) {
  Kernel bump = module->kernel("bump"), read = module->kernel("read_counters");
  Buffer<int> out = device->buffer<int>(256);
  CommandBuffer commands = device->command_buffer();
  commands.launch(bump, 256, 5);
  commands.launch(bump, 256, 7);
  commands.launch(read, 256, out);
  commands.submit().wait();
  EXPECT_EQ(out.read(), std::vector<int>(256, 12));
  // Memory persists into the next submission and into direct calls.
  bump(256, 1);
  commands.submit().wait();
  EXPECT_EQ(out.read(), std::vector<int>(256, 25));
}

// Independent launches that both use the per-invocation stacks (a kernel
// with a local array in memory): the runtime orders the stacks even without
// auto barriers.
TEST_F(ApiTest, StackKernelsShareTheStacksSafely) {
  const uint32_t n = 128;
  std::vector<int> input(n);
  for (uint32_t i = 0; i < n; ++i) input[i] = int(i) - 40;
  Buffer<int> in = device->upload(input);
  Buffer<int> out1 = device->buffer<int>(n), out2 = device->buffer<int>(n);
  Kernel stack_sum = module->kernel("stack_sum");
  CommandBuffer commands = device->command_buffer();
  commands.set_auto_barriers(false);
  commands.launch(stack_sum, n, in, out1);
  commands.launch(stack_sum, n, in, out2);
  commands.submit().wait();
  const std::vector<int> r1 = out1.read(), r2 = out2.read();
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(r1[i], input[i] * 36) << i;
    ASSERT_EQ(r2[i], input[i] * 36) << i;
  }
}

TEST_F(ApiTest, ResubmitWithNewScalars) {
  const uint32_t n = 100;
  std::vector<float> xs(n);
  for (uint32_t i = 0; i < n; ++i) xs[i] = float(i);
  Buffer<float> x = device->upload(xs);
  Buffer<float> y = device->buffer<float>(n);
  Kernel saxpy = module->kernel("saxpy");
  CommandBuffer commands = device->command_buffer();
  commands.fill(y, 0);
  const LaunchId launch = commands.launch(saxpy, n, 2.0f, x, y);
  commands.submit().wait();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y.read()[i], 2.0f * xs[i]);
  commands.set_argument(launch, "a", 3.0f);
  commands.submit().wait();
  std::vector<float> out = y.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 3.0f * xs[i]);
  commands.set_argument(launch, 0, -1.0f);
  // A buffer created in between changes the region table: recorded anew.
  Buffer<float> extra = device->buffer<float>(4);
  commands.submit().wait();
  out = y.read();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], -xs[i]);

  Exception type = expect_exception([&] { commands.set_argument(launch, "a", 3); });
  EXPECT_EQ(type.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(type.what(),
               "kernel 'saxpy', parameter 'a' (argument 1 of 3): expected f32 (float), but int32 3 was given");
  Exception buffer = expect_exception([&] { commands.set_argument(launch, "y", extra); });
  EXPECT_STREQ(buffer.what(),
               "set_argument: parameter 'y' of kernel 'saxpy' (launch 0) is not a scalar; only scalars can "
               "change between submissions (record the launch anew)");
  Exception name = expect_exception([&] { commands.set_argument(launch, "b", 1.0f); });
  EXPECT_STREQ(name.what(), "kernel 'saxpy' has no parameter named 'b' (its parameters: 'a', 'x', 'y')");
  Exception id = expect_exception([&] { commands.set_argument(LaunchId{3}, 0, 1.0f); });
  EXPECT_STREQ(id.what(), "set_argument: the CommandBuffer has no launch 3 (it has 1)");
}

TEST_F(ApiTest, TrapNamesTheLaunch) {
  Buffer<int> good = device->upload(std::vector<int>(32, 2));
  std::vector<int> values(32, 5);
  values[20] = 0;
  Buffer<int> bad = device->upload(values);
  Kernel divide = module->kernel("divide");
  CommandBuffer commands = device->command_buffer();
  commands.launch(divide, 32, good, 10);
  commands.launch(module->kernel("nothing"), 8);
  commands.launch(divide, 32, bad, 10);
  Submission submission = commands.submit();
  for (int attempt = 0; attempt < 2; ++attempt) {  // waiting again reports it again
    try {
      submission.wait();
      FAIL() << "no trap";
    } catch (const TrapError& trap) {
      EXPECT_STREQ(trap.what(),
                   "kernel 'divide' (launch 2 of the command buffer) trapped: integer divide by zero at "
                   "invocation 20 (1 invocation trapped)");
      EXPECT_EQ(trap.launch_index(), 2u);
      EXPECT_EQ(trap.kernel(), "divide");
    }
  }
  EXPECT_EQ(good.read(), std::vector<int>(32, 5));
  // Fixed input: the same command buffer runs clean.
  bad.write(std::vector<int>(32, 1));
  good.write(std::vector<int>(32, 1));
  commands.submit().wait();
  EXPECT_EQ(bad.read(), std::vector<int>(32, 10));
}

// submit() returns at once; wait() with a timeout, done() polls; what may
// not happen while the submission runs is refused.
// The spin kernel's result: `rounds` steps of x -> x * 1664525 + 1013904223
// from x = i, by composing the affine step with itself (square and multiply).
uint32_t spin_reference(uint32_t i, uint32_t rounds) {
  uint32_t a = 1, c = 0;                             // the accumulated map x -> a x + c
  uint32_t step_a = 1664525u, step_c = 1013904223u;  // the step raised to 2^k
  for (; rounds; rounds >>= 1) {
    if (rounds & 1) {
      a = step_a * a;
      c = step_a * c + step_c;
    }
    step_c = step_a * step_c + step_c;
    step_a = step_a * step_a;
  }
  return a * i + c;
}

TEST_F(ApiTest, SubmitDoesNotWaitAndRunningWorkIsProtected) {
  const uint32_t n = 8;
  Buffer<uint32_t> out = device->buffer<uint32_t>(n);
  Kernel spin = module->kernel("spin");
  CommandBuffer commands = device->command_buffer();
  // Long enough (about 0.3 s on lavapipe) that it still runs while the
  // checks below take their few milliseconds.
  const uint32_t rounds = 100'000'000;
  commands.launch(spin, n, rounds, out);
  Submission submission = commands.submit();
  EXPECT_FALSE(submission.done());  // submit() returned with the work still running
  Exception timeout = expect_exception([&] { submission.wait(1ms); });
  EXPECT_EQ(timeout.kind(), ErrorKind::Timeout);
  EXPECT_STREQ(
      timeout.what(),
      "kernel 'spin' did not finish: it ran longer than 0.001 s; it keeps running (wait again, or poll done())");
  Exception again = expect_exception([&] { commands.submit(); });
  EXPECT_EQ(again.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(again.what(),
               "submit of a CommandBuffer whose previous submission is still running; wait for it "
               "(Submission::wait) before submitting it again");
  Exception read = expect_exception([&] { out.read(); });
  EXPECT_STREQ(read.what(),
               "Buffer::read of a buffer (32 bytes) that a submission still running uses; wait for the "
               "submission first");
  Exception set = expect_exception([&] { commands.set_argument(LaunchId{0}, "rounds", 1u); });
  EXPECT_EQ(set.kind(), ErrorKind::InvalidArgument);
  Exception reset = expect_exception([&] { commands.reset(); });
  EXPECT_EQ(reset.kind(), ErrorKind::InvalidArgument);
  Exception record = expect_exception([&] { commands.launch(spin, n, 1u, out); });
  EXPECT_STREQ(record.what(),
               "CommandBuffer::launch after submit(): the commands of a submitted CommandBuffer are fixed; "
               "reset() it to record anew (set_argument() changes scalars for the next submit)");
  submission.wait();
  EXPECT_TRUE(submission.done());
  std::vector<uint32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = spin_reference(i, rounds);
  EXPECT_EQ(spin_reference(5, 2), (5u * 1664525u + 1013904223u) * 1664525u + 1013904223u);
  EXPECT_EQ(out.read(), expected);
  commands.reset();
  commands.launch(spin, n, 3u, out);
  commands.submit().wait();
  EXPECT_NE(out.read(), expected);
}

// A lost device (simulated, as in runtime/launch_test.cpp) is reported as
// DeviceLost by every later call, from the code its error carries.
TEST_F(ApiTest, ALostDeviceIsReportedAsDeviceLost) {
  Buffer<uint32_t> buffer = device->buffer<uint32_t>(4);
  auto& backend = static_cast<vulkan::VulkanDevice&>(*detail::Access::device(buffer)->backend);
  backend.runtime_device().state().fail("vkQueueSubmit", VK_ERROR_DEVICE_LOST);
  Exception fill = expect_exception([&] { buffer.fill(0); });
  EXPECT_EQ(fill.kind(), ErrorKind::DeviceLost);
  EXPECT_NE(std::string(fill.what()).find("is lost (vkQueueSubmit failed: VK_ERROR_DEVICE_LOST)"), std::string::npos)
      << fill.what();
  EXPECT_EQ(expect_exception([&] { buffer.read(); }).kind(), ErrorKind::DeviceLost);
  EXPECT_EQ(expect_exception([&] { device->buffer<uint32_t>(4); }).kind(), ErrorKind::DeviceLost);
}

TEST_F(ApiTest, EmptyAndMovedCommandBuffersAreErrors) {
  CommandBuffer commands = device->command_buffer();
  Exception empty = expect_exception([&] { commands.submit(); });
  EXPECT_STREQ(empty.what(), "submit of an empty CommandBuffer");
  CommandBuffer moved = std::move(commands);
  Exception use = expect_exception([&] { commands.barrier(); });
  EXPECT_EQ(use.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(use.what(), "CommandBuffer::barrier on a moved-from CommandBuffer");
  Buffer<int> buffer = device->buffer<int>(4);
  moved.fill(buffer, 1);
  Submission submission = moved.submit();
  Submission other = std::move(submission);
  other.wait();
  Exception wait = expect_exception([&] { submission.wait(); });
  EXPECT_STREQ(wait.what(), "wait on a moved-from Submission");
}

TEST_F(ApiTest, CopyRangesAreChecked) {
  Buffer<int> a = device->upload(std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8});
  Buffer<int> b = device->buffer<int>(4);
  CommandBuffer commands = device->command_buffer();
  Exception big = expect_exception([&] { commands.copy(a, b); });
  EXPECT_EQ(big.kind(), ErrorKind::BufferTooSmall);
  EXPECT_STREQ(big.what(), "copy of 32 bytes to offset 0 of a 16-byte destination buffer");
  Exception source = expect_exception([&] { commands.copy(b, a, 8, 12); });
  EXPECT_EQ(source.kind(), ErrorKind::BufferTooSmall);
  EXPECT_STREQ(source.what(), "copy of 8 bytes from offset 12 of a 16-byte source buffer");
  Exception overlap = expect_exception([&] { commands.copy(a, a, 16, 0, 8); });
  EXPECT_EQ(overlap.kind(), ErrorKind::InvalidArgument);
  EXPECT_STREQ(overlap.what(),
               "copy within one buffer between overlapping ranges (16 bytes from offset 0 to offset 8)");
  commands.copy(a, b, 16, 16);    // elements 4..7
  commands.copy(a, a, 8, 0, 24);  // elements 0, 1 over 6, 7
  commands.submit().wait();
  EXPECT_EQ(b.read(), (std::vector<int>{5, 6, 7, 8}));
  EXPECT_EQ(a.read(), (std::vector<int>{1, 2, 3, 4, 5, 6, 1, 2}));
}

// A buffer destroyed after it was recorded: submit() refuses, naming it.
TEST_F(ApiTest, DestroyedBufferIsReportedAtSubmit) {
  Buffer<float> x = device->buffer<float>(16);
  std::optional<Buffer<float>> y(device->buffer<float>(16));
  CommandBuffer commands = device->command_buffer();
  commands.launch(module->kernel("saxpy"), 16, 1.0f, x, *y);
  y.reset();
  Exception destroyed = expect_exception([&] { commands.submit(); });
  EXPECT_EQ(destroyed.kind(), ErrorKind::UseAfterMove);
  EXPECT_STREQ(destroyed.what(),
               "submit: launch 0 (kernel 'saxpy'): the Buffer for parameter 'y' was destroyed after it was recorded");
  CommandBuffer copies = device->command_buffer();
  std::optional<Buffer<float>> z(device->buffer<float>(16));
  copies.copy(x, *z);
  z.reset();
  Exception copy = expect_exception([&] { copies.submit(); });
  EXPECT_STREQ(copy.what(),
               "submit: the copy at command 0: its destination Buffer was destroyed after it was recorded");
}

// Destroying a buffer (and the command buffer) while a submission uses it:
// the memory lives until the submission finishes.
TEST_F(ApiTest, ResourcesLiveUntilTheirSubmissionFinishes) {
  const uint32_t n = 64;
  std::optional<Buffer<uint32_t>> out(device->buffer<uint32_t>(n));
  std::optional<Submission> submission;
  {
    CommandBuffer commands = device->command_buffer();
    commands.launch(module->kernel("spin"), n, 2'000'000u, *out);
    submission.emplace(commands.submit());
  }
  out.reset();
  submission->wait();
  EXPECT_TRUE(submission->done());
  // Dropping a running submission without waiting is fine as well.
  Buffer<uint32_t> other = device->buffer<uint32_t>(n);
  CommandBuffer commands = device->command_buffer();
  commands.launch(module->kernel("spin"), n, 2'000'000u, other);
  commands.submit();
  device->wait_idle();
  EXPECT_NE(other.read()[0], 0u);
}

}  // namespace
}  // namespace wasmgpu

namespace wasmgpu {
namespace {

using namespace std::chrono_literals;
using testing::ApiTest;
using testing::expect_exception;

// GPU timestamps around a submission: the time is positive, within the
// host's wall time of submit and wait, and grows with the work recorded.
TEST_F(ApiTest, GpuTimingMeasuresTheSubmissionsCommands) {
  const uint32_t n = 1 << 14;
  Buffer<uint32_t> out = device->buffer<uint32_t>(n);
  Kernel spin = module->kernel("spin");
  auto timed = [&](int launches) {
    CommandBuffer commands = device->command_buffer();
    EXPECT_FALSE(commands.gpu_timing());
    commands.set_gpu_timing(true);
    EXPECT_TRUE(commands.gpu_timing());
    for (int i = 0; i < launches; ++i) commands.launch(spin, n, 200u, out);  // each waits for the one before
    commands.submit().wait();                                                // compiles and warms the pipeline up
    const auto start = std::chrono::steady_clock::now();
    Submission submission = commands.submit();
    submission.wait();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double gpu = submission.gpu_seconds();
    EXPECT_GT(gpu, 0.0);
    EXPECT_LE(gpu, wall * 1.01 + 1e-4);
    EXPECT_EQ(submission.gpu_seconds(), gpu);  // the same every time it is asked
    return gpu;
  };
  // The least of three single launches: a busy machine (the suite runs
  // beside other work) only ever adds time, so the minimum is the launch's
  // own, and 16 dependent launches cannot take less than 4 of them.
  const double one = std::min({timed(1), timed(1), timed(1)}), many = timed(16);
  EXPECT_GT(many, 4 * one) << "16 dependent launches took " << many << " s, the fastest single one " << one << " s";
  uint32_t expected = n - 1;
  for (int r = 0; r < 200; ++r) expected = expected * 1664525u + 1013904223u;
  EXPECT_EQ(out.read()[n - 1], expected);
}

TEST_F(ApiTest, GpuTimingMisuse) {
  Buffer<float> data = device->buffer<float>(64);
  CommandBuffer commands = device->command_buffer();
  commands.launch(module->kernel("scale"), 64, data, 2.0f);
  Submission untimed = commands.submit();
  untimed.wait();
  Exception off = expect_exception([&] { (void)untimed.gpu_seconds(); });
  EXPECT_EQ(off.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(std::string(off.what()).find("without GPU timing"), std::string::npos) << off.what();
  // Turning it on after a submission records the commands anew with timestamps.
  commands.set_gpu_timing(true);
  Submission timed = commands.submit();
  timed.wait();
  EXPECT_GT(timed.gpu_seconds(), 0.0);
  commands.set_gpu_timing(false);
  Submission again = commands.submit();
  again.wait();
  EXPECT_EQ(expect_exception([&] { (void)again.gpu_seconds(); }).kind(), ErrorKind::InvalidArgument);
  Submission moved = std::move(again);
  EXPECT_EQ(expect_exception([&] { (void)again.gpu_seconds(); }).kind(), ErrorKind::UseAfterMove);
}

}  // namespace
}  // namespace wasmgpu
