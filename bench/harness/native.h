// A workload's native CPU twin (bench/native/NAME.c, the `native` column):
// its own host arrays with the workload's inputs, one run over all cores,
// and a check of its output against the wasm kernel's output in the
// workload's buffers. Built only where the build found libomp
// (WASMGPU_BENCH_NATIVE); the workloads return none otherwise.
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/parallel_for.h"
#include "harness/staging.h"
#include "harness/workload.h"

namespace wasmgpu::bench {

struct NativeTwin {
  // One run of the twin (OpenMP over every core).
  std::function<void()> run;
  // After run() and after a run of the wasm kernel's `variant` on `gpu`
  // (into the workload's buffers): throws std::runtime_error naming the
  // first element where the two differ by more than the workload allows.
  std::function<void(Gpu& gpu, Variant variant)> check;
  // A vendor library solving the same problem (OpenBLAS SGEMM), the
  // reference for the twin's own quality; checked against the twin's output.
  std::string library;
  std::function<void()> library_run;
  std::function<void()> library_check;
};

// Whether this build has the native twins (libomp found) and OpenBLAS.
bool native_twins_built();
bool openblas_built();

// Host arrays filled with gen(i) in parallel (the workloads' inputs).
template <class T, class Gen>
std::vector<T> generated(uint64_t count, const Gen& gen) {
  std::vector<T> out(count);
  parallel_for(count, 1 << 16, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) out[i] = gen(i);
  });
  return out;
}

// The first `count` elements of T of `buffer` (the wasm kernel's output)
// against `native`, byte for byte.
template <class T>
void check_native_bytes(Gpu& gpu, const BufferBase& buffer, const T* native, uint64_t count,
                        const std::string& workload, Variant variant, const char* array) {
  check_elements<T>(gpu, buffer, count, [&](uint64_t first, const T* wasm, uint64_t n) {
    for (uint64_t k = 0; k < n; ++k)
      if (std::memcmp(&wasm[k], &native[first + k], sizeof(T)) != 0)
        throw std::runtime_error(
            fmt::format("{}: the native twin's {}[{}] differs from the wasm kernel's ({}): "
                        "{} bytes not equal",
                        workload, array, first + k, to_string(variant), sizeof(T)));
  });
}

}  // namespace wasmgpu::bench
