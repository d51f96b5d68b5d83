/* wasi-libc's libm linked into kernels as wasm code. Each function has a
 * kernel (kernel_<f>: y[i] = f(x[i]), or f(x[i], x2[i])) and a scalar export
 * (call_<f>) through which a CPU wasm engine computes the reference results
 * from the same module (tests/e2e/libm_test.cpp). The runtime compiles one
 * shader per kernel, holding only the routines it calls. */
#include <math.h>
#include <wasmgpu.h>

#if defined(__wasm__)
#define SCALAR_EXPORT(name) __attribute__((export_name(#name)))
#else
#define SCALAR_EXPORT(name)
#endif

#define UNARY(T, f)                                                                       \
  WASMGPU_KERNEL(kernel_##f) void kernel_##f(int i, const T *x, T *y) { y[i] = f(x[i]); } \
  SCALAR_EXPORT(call_##f) T call_##f(T x) { return f(x); }

#define BINARY(T, f)                                                                                          \
  WASMGPU_KERNEL(kernel_##f) void kernel_##f(int i, const T *x, const T *x2, T *y) { y[i] = f(x[i], x2[i]); } \
  SCALAR_EXPORT(call_##f) T call_##f(T x, T x2) { return f(x, x2); }

UNARY(float, expf)
UNARY(float, logf)
UNARY(float, sinf)
UNARY(float, cosf)
UNARY(float, tanhf)
BINARY(float, powf)
BINARY(float, fmodf)
UNARY(double, exp)
UNARY(double, log)
BINARY(double, pow)
BINARY(double, fmod)
