// Workload inputs written straight into their device buffers: element i is a
// function of i alone (kernels/bench_inputs.h hashes the index), generated in
// parallel into the bench's staging buffer and copied to the device one chunk
// at a time, so no host copy of a whole multi-GiB input exists and the bytes
// do not depend on the number of threads. A prefix of an input generated for
// n elements is the input for any smaller n (the calibration reuses it).
#pragma once

#include <algorithm>
#include <cstdint>

#include "harness/gpu.h"
#include "harness/parallel_for.h"
#include "harness/staging.h"

namespace wasmgpu::bench {

// Writes gen(i) (a T) for i in [0, count) to the start of `buffer`.
template <class T, class Gen>
void upload_generated(Gpu& gpu, BufferBase& buffer, uint64_t count, const Gen& gen) {
  Staging& staging = gpu.staging();
  const uint64_t per_copy = staging.capacity() / sizeof(T);
  T* chunk = reinterpret_cast<T*>(staging.data());
  for (uint64_t first = 0; first < count; first += per_copy) {
    const uint64_t n = std::min(per_copy, count - first);
    parallel_for(n, 1 << 16, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) chunk[i] = gen(first + i);
    });
    staging.upload(buffer, first * sizeof(T), n * sizeof(T));
  }
}

}  // namespace wasmgpu::bench
