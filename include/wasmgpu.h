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

/* ---- The GPU programming model ------------------------------------------
 *
 * Everything below is a call into the GPU, imported from the wasm module
 * "wasmgpu" with a fixed signature; docs/kernel-guide.md describes each one
 * and its cost. Dimensions are 0 (x), 1 (y) and 2 (z).
 *
 * Workgroup-shared memory is declared at file scope with WASMGPU_SHARED:
 *
 *   WASMGPU_SHARED float tile[16][17];
 *
 * Such variables exist once per workgroup, start undefined (no initialisers)
 * and are ordinary C objects: take their address, index them, pass pointers.
 */
#if defined(__wasm__)
#define WASMGPU_SHARED __attribute__((section(".wasmgpu_shared")))
#define WASMGPU_IMPORT(name) __attribute__((import_module("wasmgpu"), import_name(#name)))
#else
/* Natively the declarations exist (so a kernel source compiles as C for the
 * host) but have no definitions: host reference code must not call them. */
#define WASMGPU_SHARED
#define WASMGPU_IMPORT(name)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Ids and sizes. global_id(0) equals the kernel's index in a 1-D launch. */
WASMGPU_IMPORT(global_id) unsigned wasmgpu_global_id(unsigned dimension);
WASMGPU_IMPORT(local_id) unsigned wasmgpu_local_id(unsigned dimension);
WASMGPU_IMPORT(workgroup_id) unsigned wasmgpu_workgroup_id(unsigned dimension);
WASMGPU_IMPORT(workgroup_size) unsigned wasmgpu_workgroup_size(unsigned dimension);
WASMGPU_IMPORT(workgroup_count) unsigned wasmgpu_workgroup_count(unsigned dimension);
/* local_id linearised: x + y * size_x + z * size_x * size_y. */
WASMGPU_IMPORT(local_index) unsigned wasmgpu_local_index(void);

/* Barriers. wasmgpu_barrier(): every invocation of the workgroup waits here,
 * and shared-memory writes before it are visible after it. It must be reached
 * by all invocations of the workgroup (not inside divergent control flow). */
WASMGPU_IMPORT(barrier) void wasmgpu_barrier(void);
/* Orders this invocation's device and shared memory accesses (no waiting). */
WASMGPU_IMPORT(memory_barrier) void wasmgpu_memory_barrier(void);
/* Orders this invocation's shared memory accesses (no waiting). */
WASMGPU_IMPORT(workgroup_memory_barrier) void wasmgpu_workgroup_memory_barrier(void);

/* Subgroups: invocations that run in lockstep (8 to 128 of them). */
WASMGPU_IMPORT(subgroup_size) unsigned wasmgpu_subgroup_size(void);
WASMGPU_IMPORT(subgroup_invocation_id) unsigned wasmgpu_subgroup_invocation_id(void);
WASMGPU_IMPORT(subgroup_id) unsigned wasmgpu_subgroup_id(void);
WASMGPU_IMPORT(subgroup_count) unsigned wasmgpu_subgroup_count(void);
WASMGPU_IMPORT(subgroup_broadcast_i32) int wasmgpu_subgroup_broadcast_i32(int value, unsigned lane);
WASMGPU_IMPORT(subgroup_broadcast_f32) float wasmgpu_subgroup_broadcast_f32(float value, unsigned lane);
WASMGPU_IMPORT(subgroup_shuffle_i32) int wasmgpu_subgroup_shuffle_i32(int value, unsigned lane);
WASMGPU_IMPORT(subgroup_shuffle_f32) float wasmgpu_subgroup_shuffle_f32(float value, unsigned lane);
/* Bit i set when invocation i of the subgroup passes a nonzero predicate
 * (the first 64 invocations). */
WASMGPU_IMPORT(subgroup_ballot) unsigned long long wasmgpu_subgroup_ballot(int predicate);
WASMGPU_IMPORT(subgroup_all) int wasmgpu_subgroup_all(int predicate);
WASMGPU_IMPORT(subgroup_any) int wasmgpu_subgroup_any(int predicate);
/* Reductions and scans over the active invocations of the subgroup. Float
 * sums add in an order the device chooses (not bit-exact across devices). */
WASMGPU_IMPORT(subgroup_add_i32) int wasmgpu_subgroup_add_i32(int value);
WASMGPU_IMPORT(subgroup_add_f32) float wasmgpu_subgroup_add_f32(float value);
WASMGPU_IMPORT(subgroup_min_i32) int wasmgpu_subgroup_min_i32(int value);
WASMGPU_IMPORT(subgroup_min_u32) unsigned wasmgpu_subgroup_min_u32(unsigned value);
WASMGPU_IMPORT(subgroup_min_f32) float wasmgpu_subgroup_min_f32(float value);
WASMGPU_IMPORT(subgroup_max_i32) int wasmgpu_subgroup_max_i32(int value);
WASMGPU_IMPORT(subgroup_max_u32) unsigned wasmgpu_subgroup_max_u32(unsigned value);
WASMGPU_IMPORT(subgroup_max_f32) float wasmgpu_subgroup_max_f32(float value);
WASMGPU_IMPORT(subgroup_inclusive_add_i32) int wasmgpu_subgroup_inclusive_add_i32(int value);
WASMGPU_IMPORT(subgroup_inclusive_add_f32) float wasmgpu_subgroup_inclusive_add_f32(float value);
WASMGPU_IMPORT(subgroup_exclusive_add_i32) int wasmgpu_subgroup_exclusive_add_i32(int value);
WASMGPU_IMPORT(subgroup_exclusive_add_f32) float wasmgpu_subgroup_exclusive_add_f32(float value);

/* Atomics on 4-byte aligned words in buffers, module memory or shared memory
 * (a misaligned address traps). Each returns the old value. Relaxed: order
 * other accesses with barriers. */
WASMGPU_IMPORT(atomic_add_i32) int wasmgpu_atomic_add(volatile int *p, int v);
WASMGPU_IMPORT(atomic_sub_i32) int wasmgpu_atomic_sub(volatile int *p, int v);
WASMGPU_IMPORT(atomic_and_i32) int wasmgpu_atomic_and(volatile int *p, int v);
WASMGPU_IMPORT(atomic_or_i32) int wasmgpu_atomic_or(volatile int *p, int v);
WASMGPU_IMPORT(atomic_xor_i32) int wasmgpu_atomic_xor(volatile int *p, int v);
WASMGPU_IMPORT(atomic_min_i32) int wasmgpu_atomic_min(volatile int *p, int v);
WASMGPU_IMPORT(atomic_max_i32) int wasmgpu_atomic_max(volatile int *p, int v);
WASMGPU_IMPORT(atomic_min_u32) unsigned wasmgpu_atomic_min_u(volatile unsigned *p, unsigned v);
WASMGPU_IMPORT(atomic_max_u32) unsigned wasmgpu_atomic_max_u(volatile unsigned *p, unsigned v);
WASMGPU_IMPORT(atomic_exchange_i32) int wasmgpu_atomic_exchange(volatile int *p, int v);
/* Stores `desired` when *p == expected; returns the old value either way. */
WASMGPU_IMPORT(atomic_compare_exchange_i32)
int wasmgpu_atomic_compare_exchange(volatile int *p, int expected, int desired);
/* A compare-exchange loop: slower than the integer atomics under contention. */
WASMGPU_IMPORT(atomic_add_f32) float wasmgpu_atomic_add_f32(volatile float *p, float v);

#ifdef __cplusplus
}
#endif


#endif /* WASMGPU_H */
