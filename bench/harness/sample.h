// Which elements a sampled check compares: spread over the whole output, the
// first and last elements included, so that it still fails on a wrong
// beginning, end or middle.
#pragma once

#include <cstdint>
#include <vector>

namespace wasmgpu::bench {

// Every index of [0, total) when total <= count; else about `count` indices
// in runs of `run` consecutive ones, the runs evenly spaced, the first
// starting at 0 and the last ending at total - 1. Increasing.
std::vector<uint64_t> sample_indices(uint64_t total, uint64_t count, uint64_t run = 1);

}  // namespace wasmgpu::bench
