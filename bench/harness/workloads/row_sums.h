// The CPU side of the kernels that give one workgroup of 256 to a row of a
// matrix (gesummv, atax, bicg): their sums in the kernels' order.
#pragma once

#include <cmath>
#include <cstdint>

namespace wasmgpu::bench {

// sum over j < n of row(j) * x(j) as a workgroup of 256 adds it: invocation
// l sums the products for j = l, l + 256, ... in that order, then the 256
// sums are added in a tree (sums[l] += sums[l + half], half = 128, 64, ...,
// 1). `magnitude` gets the sum of the products' magnitudes (the scale of
// the rounding error of a reordered or contracted sum).
template <class Row, class X>
float workgroup_dot(uint64_t n, const Row& row, const X& x, double& magnitude) {
  float sums[256] = {};
  magnitude = 0.0;
  for (uint64_t j = 0; j < n; ++j) {
    const float product = row(j) * x(j);
    sums[j % 256] += product;
    magnitude += std::fabs(product);
  }
  for (uint32_t half = 128; half > 0; half >>= 1)
    for (uint32_t l = 0; l < half; ++l) sums[l] += sums[l + half];
  return sums[0];
}

}  // namespace wasmgpu::bench
