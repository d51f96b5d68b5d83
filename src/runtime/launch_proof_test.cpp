// Launches whose accesses are proven in bounds (abi/launch_proof.h) run a
// pipeline without their range checks; the same kernel launched so that an
// access leaves its buffer keeps the checks and reports the trap.
#include <gtest/gtest.h>

#include <numeric>

#include "runtime/device_state.h"
#include "runtime/module.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::VulkanTest;
using testing::wat_to_wasm;

TEST_F(VulkanTest, ProvenLaunchesSkipChecksAndOthersStillTrap) {
  // out[i] = in[i] + 1 for i < n.
  const char* wat = R"((module
    (memory 1)
    (func (export "add_one") (param $i i32) (param $in i32) (param $out i32) (param $n i32)
      (if (i32.lt_u (local.get $i) (local.get $n))
        (then
          (i32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
            (i32.add (i32.load (i32.add (local.get $in) (i32.shl (local.get $i) (i32.const 2))))
                     (i32.const 1))))))))";
  auto module = Module::load(*device, wat_to_wasm(wat));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  auto kernel = module->kernel("add_one");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  EXPECT_EQ((*kernel)->info().launch_proof.accesses.size(), 2u);

  const uint32_t n = 257;
  std::vector<uint32_t> input(n);
  std::iota(input.begin(), input.end(), 10u);
  auto in = device->create_buffer(4 * n);
  auto out = device->create_buffer(4 * n);
  auto short_out = device->create_buffer(4 * (n - 1));  // one word short
  ASSERT_TRUE(in.ok() && out.ok() && short_out.ok());
  ASSERT_TRUE(in->write(input).ok());
  std::vector<uint32_t> expected(n);
  for (uint32_t i = 0; i < n; ++i) expected[i] = input[i] + 1;

  const uint64_t created_before = device->cache_stats().pipelines_created;
  // Both proven: one pipeline.
  Status launched = (*kernel)->launch(n, 64, {*in, *out, n});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(*out->read_as<uint32_t>(n), expected);
  // More invocations than n: still proven by the kernel's own test (same pipeline).
  ASSERT_TRUE((*kernel)->launch(n + 31, 64, {*in, *out, n}).ok());
  EXPECT_EQ(device->cache_stats().pipelines_created - created_before, 1u);

  // out one word short: its store keeps its check (a second pipeline), and
  // the last invocation's store traps instead of writing past the buffer.
  Status trapped = (*kernel)->launch(n, 64, {*in, *short_out, n});
  ASSERT_FALSE(trapped.ok());
  EXPECT_EQ(trapped.error().message,
            "kernel 'add_one' trapped: out of bounds memory access at invocation 256 (1 invocation trapped)");
  EXPECT_EQ(*short_out->read_as<uint32_t>(n - 1), std::vector<uint32_t>(expected.begin(), expected.end() - 1));
  EXPECT_EQ(device->cache_stats().pipelines_created - created_before, 2u);

  // n past both buffers: nothing proven; the first access past `in` traps.
  trapped = (*kernel)->launch(n + 1, 64, {*in, *out, n + 1});
  ASSERT_FALSE(trapped.ok());
  EXPECT_NE(trapped.error().message.find("out of bounds memory access at invocation 257"), std::string::npos)
      << trapped.error().message;
}

TEST_F(VulkanTest, ColumnWalksAreProvenWithTheirStrideAndTrapPastTheBuffer) {
  // sums[j] = the sum of column j of a w-wide matrix of n rows: a pointer
  // steps down the column by 4 * w (the argument) while the row counts
  // to n, the test written `n (i = i + 1) ne` as clang folds it.
  const char* wat = R"((module
    (memory 1)
    (func (export "column_sums") (param $j i32) (param $a i32) (param $sums i32) (param $w i32) (param $n i32)
      (local $i i32) (local $p i32) (local $step i32) (local $sum i32)
      (if (i32.eqz (local.get $n)) (then (return)))
      (local.set $p (i32.add (local.get $a) (i32.shl (local.get $j) (i32.const 2))))
      (local.set $step (i32.shl (local.get $w) (i32.const 2)))
      (loop $rows
        (local.set $sum (i32.add (local.get $sum) (i32.load (local.get $p))))
        (local.set $p (i32.add (local.get $p) (local.get $step)))
        (br_if $rows (i32.ne (local.get $n) (local.tee $i (i32.add (local.get $i) (i32.const 1))))))
      (i32.store (i32.add (local.get $sums) (i32.shl (local.get $j) (i32.const 2))) (local.get $sum)))))";
  auto module = Module::load(*device, wat_to_wasm(wat));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  auto kernel = module->kernel("column_sums");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  // The column load and the sum's store.
  EXPECT_EQ((*kernel)->info().launch_proof.accesses.size(), 2u);

  const uint32_t w = 96, n = 40;
  std::vector<uint32_t> matrix(w * n);
  std::iota(matrix.begin(), matrix.end(), 1u);
  std::vector<uint32_t> expected(w, 0);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < w; ++j) expected[j] += matrix[i * w + j];
  auto a = device->create_buffer(4 * w * n);
  auto short_a = device->create_buffer(4 * (w * n - 1));  // the last column's last word missing
  auto sums = device->create_buffer(4 * w);
  ASSERT_TRUE(a.ok() && short_a.ok() && sums.ok());
  ASSERT_TRUE(a->write(matrix).ok());
  ASSERT_TRUE(short_a->write(std::span<const uint32_t>(matrix).first(w * n - 1)).ok());

  const uint64_t created_before = device->cache_stats().pipelines_created;
  Status launched = (*kernel)->launch(w, 32, {*a, *sums, w, n});
  ASSERT_TRUE(launched.ok()) << launched.error().message;
  EXPECT_EQ(*sums->read_as<uint32_t>(w), expected);
  // The walk one word past its buffer: the load keeps its check (another
  // pipeline) and the last column traps.
  Status trapped = (*kernel)->launch(w, 32, {*short_a, *sums, w, n});
  ASSERT_FALSE(trapped.ok());
  EXPECT_EQ(trapped.error().message,
            "kernel 'column_sums' trapped: out of bounds memory access at invocation 95 (1 invocation trapped)");
  EXPECT_EQ(device->cache_stats().pipelines_created - created_before, 2u);
}

}  // namespace
}  // namespace wasmgpu::runtime
