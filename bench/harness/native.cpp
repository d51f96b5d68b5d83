#include "harness/native.h"

namespace wasmgpu::bench {

bool native_twins_built() {
#if WASMGPU_BENCH_NATIVE
  return true;
#else
  return false;
#endif
}

bool openblas_built() {
#if WASMGPU_BENCH_OPENBLAS
  return true;
#else
  return false;
#endif
}

}  // namespace wasmgpu::bench
