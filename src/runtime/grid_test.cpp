// Grid launches: the limits they are checked against, and the invocation
// index a wasm kernel receives in every shape (the grids themselves also run
// in the examples reduction, histogram, matmul and jacobi).
#include "runtime/kernel.h"

#include <numeric>

#include "runtime/module.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::glsl_kernel;
using testing::VulkanTest;
using testing::wat_to_wasm;

spirv::CompiledKernel noop_kernel() { return glsl_kernel("noop", "void kernel(uint i) {}", {}); }

TEST_F(VulkanTest, GridLaunchRunsAndChecksLimits) {
  const DeviceLimits& limits = device->info().limits;
  auto kernel = Kernel::create(*device, noop_kernel());
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  EXPECT_TRUE(kernel->launch(Grid{2, 3, 1}, WorkgroupSize{4, 2, 1}, {}).ok());

  Status too_many = kernel->launch(Grid{1, limits.max_workgroup_count[1] + 1, 1}, WorkgroupSize{1, 1, 1}, {});
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("workgroups in y exceeds the device's limit of " +
                                          std::to_string(limits.max_workgroup_count[1])),
            std::string::npos)
      << too_many.error().message;

  Status too_deep = kernel->launch(Grid{1, 1, 1}, WorkgroupSize{1, 1, limits.max_workgroup_size[2] + 1}, {});
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.error().message.find("in z exceeds the device's limit"), std::string::npos)
      << too_deep.error().message;

  uint32_t side = limits.max_workgroup_size[0] < 64 ? limits.max_workgroup_size[0] : 64;
  Status too_large = kernel->launch(Grid{1, 1, 1}, WorkgroupSize{side, side, 1}, {});
  if (side * side > limits.max_workgroup_invocations) {
    ASSERT_FALSE(too_large.ok());
    EXPECT_NE(too_large.error().message.find("maxComputeWorkGroupInvocations"), std::string::npos);
  }

  Status empty = kernel->launch(Grid{0, 1, 1}, WorkgroupSize{1, 1, 1}, {});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("at least 1"), std::string::npos);
}

TEST_F(VulkanTest, SharedMemoryAndBarrierRequirementsAreChecked) {
  const DeviceLimits& limits = device->info().limits;
  spirv::CompiledKernel big = noop_kernel();
  big.info.shared_memory_bytes = limits.max_shared_memory_bytes + 4;
  auto kernel = Kernel::create(*device, std::move(big));
  ASSERT_TRUE(kernel.ok());
  Status too_much = kernel->launch(Grid{1, 1, 1}, WorkgroupSize{1, 1, 1}, {});
  ASSERT_FALSE(too_much.ok());
  EXPECT_NE(too_much.error().message.find("maxComputeSharedMemorySize"), std::string::npos) << too_much.error().message;

  spirv::CompiledKernel barrier = noop_kernel();
  barrier.info.uses_barriers = true;
  auto with_barrier = Kernel::create(*device, std::move(barrier));
  ASSERT_TRUE(with_barrier.ok());
  Status partial = with_barrier->launch(100, 64, {});
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.error().message.find("must be a multiple of the workgroup size (64)"), std::string::npos)
      << partial.error().message;
  EXPECT_TRUE(with_barrier->launch(128, 64, {}).ok());
}

// Each invocation stores its index at out[index]. The compiled `main` is
// specialised per launch (abi/launch_abi.h): it leaves the y and z terms out
// of the index where the invocations do not extend over them, and compares
// the index with the count only when the launch may run past it. So a
// workgroup size runs one pipeline per specialisation: the 1-D launch of 200
// and the 3x1x1 grid share one; the 1-D launch of 201 (whose last workgroup
// runs past the count, and must not store), the grids over y and over z have
// their own; a grid whose y extent comes from its workgroup size alone
// counts as 2-D.
TEST_F(VulkanTest, WasmKernelIndexIsLinearInEveryShape) {
  const char* wat = R"((module
    (memory 1)
    (func (export "own_index") (param $index i32) (param $out i32)
      (i32.store (i32.add (local.get $out) (i32.shl (local.get $index) (i32.const 2))) (local.get $index)))))";
  auto module = Module::load(*device, wat_to_wasm(wat));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  auto kernel = module->kernel("own_index");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  struct Shape {
    const char* name;
    std::optional<Grid> grid;
    WorkgroupSize size;
    uint32_t n;
  };
  const Shape shapes[] = {
      {"1-D of 200", std::nullopt, WorkgroupSize{4, 1, 1}, 200},
      {"grid 3x1x1 of 4x1x1", Grid{3, 1, 1}, WorkgroupSize{4, 1, 1}, 12},
      {"1-D of 201", std::nullopt, WorkgroupSize{4, 1, 1}, 201},
      {"grid 2x3x1 of 4x1x1", Grid{2, 3, 1}, WorkgroupSize{4, 1, 1}, 24},
      {"grid 2x1x3 of 4x1x1", Grid{2, 1, 3}, WorkgroupSize{4, 1, 1}, 24},
      {"grid 2x1x1 of 4x2x1", Grid{2, 1, 1}, WorkgroupSize{4, 2, 1}, 16},
      {"grid 2x3x2 of 2x2x2", Grid{2, 3, 2}, WorkgroupSize{2, 2, 2}, 96},
  };
  const uint32_t kUntouched = 0xFFFF'FFFFu, kSpare = 4;  // words after the n written
  const uint64_t created_before = device->cache_stats().pipelines_created;
  for (const Shape& shape : shapes) {
    auto out = device->create_buffer(4 * (shape.n + kSpare));
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE(out->write(std::vector<uint32_t>(shape.n + kSpare, kUntouched)).ok());
    Status launched = shape.grid ? (*kernel)->launch(*shape.grid, shape.size, {*out})
                                 : (*kernel)->launch(shape.n, shape.size.x, {*out});
    ASSERT_TRUE(launched.ok()) << shape.name << ": " << launched.error().message;
    auto got = out->read_as<uint32_t>(shape.n + kSpare);
    ASSERT_TRUE(got.ok());
    std::vector<uint32_t> expected(shape.n + kSpare, kUntouched);
    std::iota(expected.begin(), expected.begin() + shape.n, 0u);
    EXPECT_EQ(*got, expected) << shape.name;
  }
  EXPECT_EQ(device->cache_stats().pipelines_created - created_before, 6u);
}

// wasmgpu_workgroup_count(d) is the grid's workgroups in d (a 1-D launch's
// x counts its whole launch, whatever its dispatches): here a grid over x
// and y, where x must not count the rows' invocations too.
TEST_F(VulkanTest, WorkgroupCountIsTheGridsInEachDimension) {
  const char* wat = R"((module
    (import "wasmgpu" "workgroup_count" (func $count (param i32) (result i32)))
    (memory 1)
    (func (export "counts") (param $index i32) (param $out i32)
      (local $at i32)
      (local.set $at (i32.add (local.get $out) (i32.mul (local.get $index) (i32.const 12))))
      (i32.store (local.get $at) (call $count (i32.const 0)))
      (i32.store offset=4 (local.get $at) (call $count (i32.const 1)))
      (i32.store offset=8 (local.get $at) (call $count (i32.const 2))))))";
  auto module = Module::load(*device, wat_to_wasm(wat));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  auto kernel = module->kernel("counts");
  ASSERT_TRUE(kernel.ok()) << kernel.error().to_string();
  const uint32_t n = 3 * 2 * 4;  // a grid of 3 x 2 workgroups of 2 x 2
  auto out = device->create_buffer(12 * n);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE((*kernel)->launch(Grid{3, 2, 1}, WorkgroupSize{2, 2, 1}, {*out}).ok());
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < n; ++i) expected.insert(expected.end(), {3, 2, 1});
  EXPECT_EQ(*out->read_as<uint32_t>(3 * n), expected);
  // A 1-D launch of 10 workgroups of 4.
  auto linear = device->create_buffer(12 * 40);
  ASSERT_TRUE(linear.ok());
  ASSERT_TRUE((*kernel)->launch(40, 4, {*linear}).ok());
  expected.clear();
  for (uint32_t i = 0; i < 40; ++i) expected.insert(expected.end(), {10, 1, 1});
  EXPECT_EQ(*linear->read_as<uint32_t>(3 * 40), expected);
}

}  // namespace
}  // namespace wasmgpu::runtime
