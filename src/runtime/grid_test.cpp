// Grid launches: the limits they are checked against (the grids themselves
// run in the examples reduction, histogram, matmul and jacobi).
#include "runtime/kernel.h"
#include "runtime/test_support.h"

namespace wasmgpu::runtime {
namespace {

using testing::glsl_kernel;
using testing::VulkanTest;

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
            std::string::npos) << too_many.error().message;

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
  EXPECT_NE(too_much.error().message.find("maxComputeSharedMemorySize"), std::string::npos)
      << too_much.error().message;

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

}  // namespace
}  // namespace wasmgpu::runtime
