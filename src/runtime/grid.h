// Launch shapes: a grid of workgroups in up to three dimensions.
#pragma once

#include <cstdint>

namespace wasmgpu::runtime {

// Workgroups in each dimension. A launch runs grid.x * grid.y * grid.z
// workgroups of WorkgroupSize invocations each, all of them (no partial
// workgroups): kernels check their own bounds.
struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

// Invocations per workgroup in each dimension; x == 0 picks the default (64).
struct WorkgroupSize {
  uint32_t x = 0, y = 1, z = 1;
};

}  // namespace wasmgpu::runtime
