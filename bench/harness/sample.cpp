#include "harness/sample.h"

#include <algorithm>

namespace wasmgpu::bench {

std::vector<uint64_t> sample_indices(uint64_t total, uint64_t count, uint64_t run) {
  std::vector<uint64_t> indices;
  if (total <= count) {
    indices.resize(total);
    for (uint64_t i = 0; i < total; ++i) indices[i] = i;
    return indices;
  }
  run = std::clamp<uint64_t>(run, 1, std::max<uint64_t>(1, count / 2));
  const uint64_t runs = std::max<uint64_t>(2, count / run);
  // Starts r * (total - run) / (runs - 1): spaced more than `run` apart, since
  // total > count >= runs * run.
  indices.reserve(runs * run);
  for (uint64_t r = 0; r < runs; ++r) {
    const uint64_t start = uint64_t((unsigned __int128)r * (total - run) / (runs - 1));
    for (uint64_t i = 0; i < run; ++i) indices.push_back(start + i);
  }
  return indices;
}

}  // namespace wasmgpu::bench
