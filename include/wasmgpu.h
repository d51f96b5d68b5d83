/* wasmgpu.h: the kernel-side header for C and C++ kernels compiled to wasm32.
 *
 * A kernel is an exported function whose first parameter is the global
 * invocation index; its other parameters are scalars or pointers into buffers
 * the host bound. Mark it with WASMGPU_KERNEL:
 *
 *   WASMGPU_KERNEL(saxpy) void saxpy(int i, float a, const float *x, float *y) {
 *     y[i] = a * x[i] + y[i];
 *   }
 *
 * Compiled natively (not for wasm32), the macro expands to an ordinary
 * external function, so the same source serves as a CPU reference.
 */
#ifndef WASMGPU_H
#define WASMGPU_H

#ifdef __cplusplus
#define WASMGPU_EXTERN_C extern "C"
#else
#define WASMGPU_EXTERN_C
#endif

#if defined(__wasm__)
#define WASMGPU_KERNEL(name) WASMGPU_EXTERN_C __attribute__((export_name(#name)))
#else
#define WASMGPU_KERNEL(name) WASMGPU_EXTERN_C
#endif

#endif /* WASMGPU_H */
