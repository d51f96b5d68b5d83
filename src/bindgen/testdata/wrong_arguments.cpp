// Calls of generated stubs that must not compile; WRONG selects one. The
// bindgen.rejects_* tests compile this file and check the diagnostic.
#include "api_kernels.hpp"

void call(api_kernels::Module& k, wasmgpu::Buffer<float>& x, wasmgpu::Buffer<float>& y, wasmgpu::Buffer<int>& ints) {
#if WRONG == 1
  k.saxpy(16, 2.0, x, y);  // a double for the float `a`
#elif WRONG == 2
  k.saxpy(16, 2.0f, ints, y);  // a Buffer<int> for the float buffer `x`
#elif WRONG == 3
  k.saxpy(16, 2.0f, x);  // `y` missing
#elif WRONG == 4
  const wasmgpu::Buffer<float>& read_only = y;
  k.saxpy(16, 2.0f, x, read_only);  // `y` is written: a const buffer does not do
#else
#error "define WRONG"
#endif
}
