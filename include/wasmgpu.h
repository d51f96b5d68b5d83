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

/* Images and samplers reach kernels as integer handles (see "Images" below). */
typedef int wasmgpu_image;
typedef int wasmgpu_sampler;

#if defined(__wasm__)
#define WASMGPU_KERNEL(name) WASMGPU_EXTERN_C __attribute__((export_name(#name)))
#else
#define WASMGPU_KERNEL(name) WASMGPU_EXTERN_C
#endif

/* ---- Kernels that describe their parameters -------------------------------
 *
 * WASMGPU_DEFINE_KERNEL declares the exported kernel and records its
 * parameters (names, C types, pointee types with their size and alignment)
 * in the custom section "wasmgpu.kernels", which tools read (wasmgpu inspect,
 * binding generators); the list is written once, so the two cannot differ:
 *
 *   WASMGPU_DEFINE_KERNEL(saxpy, WASMGPU_VALUE(int, i), WASMGPU_VALUE(float, a),
 *                         WASMGPU_CONST_PTR(float, x), WASMGPU_PTR(float, y)) {
 *     y[i] = a * x[i] + y[i];
 *   }
 *
 * WASMGPU_VALUE(T, name)      a scalar: T name (int, unsigned, long long, float, double ...)
 * WASMGPU_PTR(T, name)        a buffer the kernel may write: T *name
 * WASMGPU_CONST_PTR(T, name)  a buffer the kernel only reads: const T *name
 * WASMGPU_IMAGE(name)         an image handle: wasmgpu_image name (the host passes an Image)
 * WASMGPU_SAMPLER(name)       a sampler handle: wasmgpu_sampler name (the host passes a Sampler)
 *
 * T is a type such as float, unsigned, struct particle or a typedef (pointer,
 * array and function types need a typedef); up to 16 parameters, the
 * invocation index first. docs/kernel-guide.md gives the encoding.
 */
#define WASMGPU_VALUE(T, name) (WASMGPU_VALUE_, T, name)
#define WASMGPU_PTR(T, name) (WASMGPU_PTR_, T, name)
#define WASMGPU_CONST_PTR(T, name) (WASMGPU_CONST_PTR_, T, name)
#define WASMGPU_IMAGE(name) (WASMGPU_IMAGE_, wasmgpu_image, name)
#define WASMGPU_SAMPLER(name) (WASMGPU_SAMPLER_, wasmgpu_sampler, name)

#define WASMGPU_DEFINE_KERNEL(name, ...)   \
  WASMGPU_PARAM_RECORD_(name, __VA_ARGS__) \
  WASMGPU_KERNEL(name) void name(WASMGPU_MAP_COMMA_(WASMGPU_DECLARE_, __VA_ARGS__))

/* Implementation. Each parameter is a tuple (KIND, T, name); KIND##DECL,
 * KIND##CODE, KIND##TYPE and KIND##POINTEE give its declaration, its kind
 * code, and the assembler text spelling its type and pointee type. */
#define WASMGPU_VALUE_DECL(T, name) T name
#define WASMGPU_VALUE_CODE(T) (__builtin_classify_type((T)0) == 8) /* 1: floating point, 0: integer */
#define WASMGPU_VALUE_TYPE(T) ".asciz " WASMGPU_ASM_STRING_(T) "\n"
#define WASMGPU_VALUE_POINTEE(T) ".int8 0\n"
#define WASMGPU_PTR_DECL(T, name) T *name
#define WASMGPU_PTR_CODE(T) 2
#define WASMGPU_PTR_TYPE(T) ".ascii " WASMGPU_ASM_STRING_(T) "\n.asciz \" *\"\n"
#define WASMGPU_PTR_POINTEE(T) ".asciz " WASMGPU_ASM_STRING_(T) "\n"
#define WASMGPU_CONST_PTR_DECL(T, name) const T *name
#define WASMGPU_CONST_PTR_CODE(T) 3
#define WASMGPU_CONST_PTR_TYPE(T) ".ascii \"const \"\n" WASMGPU_PTR_TYPE(T)
#define WASMGPU_CONST_PTR_POINTEE(T) WASMGPU_PTR_POINTEE(T)
/* Handles are ints; kinds 4 and 5 tell tools they name an image or sampler. */
#define WASMGPU_IMAGE_DECL(T, name) T name
#define WASMGPU_IMAGE_CODE(T) 4
#define WASMGPU_IMAGE_TYPE(T) WASMGPU_VALUE_TYPE(T)
#define WASMGPU_IMAGE_POINTEE(T) WASMGPU_VALUE_POINTEE(T)
#define WASMGPU_SAMPLER_DECL(T, name) T name
#define WASMGPU_SAMPLER_CODE(T) 5
#define WASMGPU_SAMPLER_TYPE(T) WASMGPU_VALUE_TYPE(T)
#define WASMGPU_SAMPLER_POINTEE(T) WASMGPU_VALUE_POINTEE(T)

#define WASMGPU_CAT_(a, b) WASMGPU_CAT2_(a, b)
#define WASMGPU_CAT2_(a, b) a##b
#define WASMGPU_STRING_(x) #x
/* T as an assembler string literal: "float" with its quotes escaped. */
#define WASMGPU_ASM_STRING_(T) WASMGPU_STRING2_(WASMGPU_STRING_(T))
#define WASMGPU_STRING2_(x) WASMGPU_STRING_(x)
#define WASMGPU_DECLARE_(param) WASMGPU_DECLARE2_ param
#define WASMGPU_DECLARE2_(kind, T, name) kind##DECL(T, name)

#if defined(__wasm__)
/* The record is written by inline assembly into the section
 * .custom_section.wasmgpu.kernels, which wasm-ld turns into the custom
 * section "wasmgpu.kernels" (it does so for assembler sections, not for C
 * variables, which stay data). Operands "i" give sizes and alignments as
 * numbers. The function holding the assembly is never called, so wasm-ld
 * drops it; the section stays. */
#ifdef __cplusplus
#define WASMGPU_ALIGNOF_(T) alignof(T)
#else
#define WASMGPU_ALIGNOF_(T) _Alignof(T)
#endif
#define WASMGPU_RECORD_ASM_(kernel, text, ...)                                                                       \
  __asm__ volatile(".section .custom_section.wasmgpu.kernels,\"\",@\n" text ".section .text.wasmgpu_params_" #kernel \
                   ",\"\",@\n" ::__VA_ARGS__)
#define WASMGPU_PARAM_RECORD_(kernel, ...)                                                                        \
  WASMGPU_EXTERN_C void wasmgpu_params_##kernel(void);                                                            \
  WASMGPU_EXTERN_C void wasmgpu_params_##kernel(void) {                                                           \
    WASMGPU_RECORD_ASM_(kernel, ".int8 1\n.asciz \"" #kernel "\"\n.int8 %0\n", "i"(WASMGPU_COUNT_(__VA_ARGS__))); \
    WASMGPU_MAP_(WASMGPU_PARAM_ASM_, kernel, __VA_ARGS__)                                                         \
  }
#define WASMGPU_PARAM_ASM_(kernel, param) WASMGPU_PARAM_ASM2_((kernel, WASMGPU_UNPACK_ param))
#define WASMGPU_UNPACK_(...) __VA_ARGS__
#define WASMGPU_PARAM_ASM2_(args) WASMGPU_PARAM_ASM3_ args
#define WASMGPU_PARAM_ASM3_(kernel, kind, T, name)                                                                     \
  WASMGPU_RECORD_ASM_(kernel, ".int8 %0\n.int32 %1\n.int32 %2\n.asciz \"" #name "\"\n" kind##TYPE(T) kind##POINTEE(T), \
                      "i"(kind##CODE(T)), "i"(sizeof(T)), "i"(WASMGPU_ALIGNOF_(T)));
#else
#define WASMGPU_PARAM_RECORD_(kernel, ...)
#endif

#define WASMGPU_COUNT_(...) WASMGPU_COUNT2_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define WASMGPU_COUNT2_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, n, ...) n
/* WASMGPU_MAP_(m, x, a, b, ...) is m(x, a) m(x, b) ...;
 * WASMGPU_MAP_COMMA_(m, a, b, ...) is m(a), m(b), ... */
#define WASMGPU_MAP_(m, x, ...) WASMGPU_CAT_(WASMGPU_MAP_, WASMGPU_COUNT_(__VA_ARGS__))(m, x, __VA_ARGS__)
#define WASMGPU_MAP_1(m, x, a) m(x, a)
#define WASMGPU_MAP_2(m, x, a, ...) m(x, a) WASMGPU_MAP_1(m, x, __VA_ARGS__)
#define WASMGPU_MAP_3(m, x, a, ...) m(x, a) WASMGPU_MAP_2(m, x, __VA_ARGS__)
#define WASMGPU_MAP_4(m, x, a, ...) m(x, a) WASMGPU_MAP_3(m, x, __VA_ARGS__)
#define WASMGPU_MAP_5(m, x, a, ...) m(x, a) WASMGPU_MAP_4(m, x, __VA_ARGS__)
#define WASMGPU_MAP_6(m, x, a, ...) m(x, a) WASMGPU_MAP_5(m, x, __VA_ARGS__)
#define WASMGPU_MAP_7(m, x, a, ...) m(x, a) WASMGPU_MAP_6(m, x, __VA_ARGS__)
#define WASMGPU_MAP_8(m, x, a, ...) m(x, a) WASMGPU_MAP_7(m, x, __VA_ARGS__)
#define WASMGPU_MAP_9(m, x, a, ...) m(x, a) WASMGPU_MAP_8(m, x, __VA_ARGS__)
#define WASMGPU_MAP_10(m, x, a, ...) m(x, a) WASMGPU_MAP_9(m, x, __VA_ARGS__)
#define WASMGPU_MAP_11(m, x, a, ...) m(x, a) WASMGPU_MAP_10(m, x, __VA_ARGS__)
#define WASMGPU_MAP_12(m, x, a, ...) m(x, a) WASMGPU_MAP_11(m, x, __VA_ARGS__)
#define WASMGPU_MAP_13(m, x, a, ...) m(x, a) WASMGPU_MAP_12(m, x, __VA_ARGS__)
#define WASMGPU_MAP_14(m, x, a, ...) m(x, a) WASMGPU_MAP_13(m, x, __VA_ARGS__)
#define WASMGPU_MAP_15(m, x, a, ...) m(x, a) WASMGPU_MAP_14(m, x, __VA_ARGS__)
#define WASMGPU_MAP_16(m, x, a, ...) m(x, a) WASMGPU_MAP_15(m, x, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_(m, ...) WASMGPU_CAT_(WASMGPU_MAP_COMMA_, WASMGPU_COUNT_(__VA_ARGS__))(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_1(m, a) m(a)
#define WASMGPU_MAP_COMMA_2(m, a, ...) m(a), WASMGPU_MAP_COMMA_1(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_3(m, a, ...) m(a), WASMGPU_MAP_COMMA_2(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_4(m, a, ...) m(a), WASMGPU_MAP_COMMA_3(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_5(m, a, ...) m(a), WASMGPU_MAP_COMMA_4(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_6(m, a, ...) m(a), WASMGPU_MAP_COMMA_5(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_7(m, a, ...) m(a), WASMGPU_MAP_COMMA_6(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_8(m, a, ...) m(a), WASMGPU_MAP_COMMA_7(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_9(m, a, ...) m(a), WASMGPU_MAP_COMMA_8(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_10(m, a, ...) m(a), WASMGPU_MAP_COMMA_9(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_11(m, a, ...) m(a), WASMGPU_MAP_COMMA_10(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_12(m, a, ...) m(a), WASMGPU_MAP_COMMA_11(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_13(m, a, ...) m(a), WASMGPU_MAP_COMMA_12(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_14(m, a, ...) m(a), WASMGPU_MAP_COMMA_13(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_15(m, a, ...) m(a), WASMGPU_MAP_COMMA_14(m, __VA_ARGS__)
#define WASMGPU_MAP_COMMA_16(m, a, ...) m(a), WASMGPU_MAP_COMMA_15(m, __VA_ARGS__)

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
/* Barriers and subgroup operations are convergent: every invocation of the
 * workgroup (subgroup) must reach the same call together. Without the
 * attribute clang may duplicate such a call into both sides of a branch
 * (tail duplication, jump threading), which puts a barrier in divergent
 * control flow: a tree reduction `if (i < half) ...; barrier();` in a loop
 * became per-invocation sequences of barriers and early returns. */
#if defined(__clang__)
#define WASMGPU_CONVERGENT __attribute__((convergent))
#else
#define WASMGPU_CONVERGENT
#endif

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
WASMGPU_IMPORT(barrier) WASMGPU_CONVERGENT void wasmgpu_barrier(void);
/* Orders this invocation's device and shared memory accesses (no waiting). */
WASMGPU_IMPORT(memory_barrier) void wasmgpu_memory_barrier(void);
/* Orders this invocation's shared memory accesses (no waiting). */
WASMGPU_IMPORT(workgroup_memory_barrier) void wasmgpu_workgroup_memory_barrier(void);

/* Subgroups: invocations that run in lockstep (8 to 128 of them). */
WASMGPU_IMPORT(subgroup_size) unsigned wasmgpu_subgroup_size(void);
WASMGPU_IMPORT(subgroup_invocation_id) unsigned wasmgpu_subgroup_invocation_id(void);
WASMGPU_IMPORT(subgroup_id) unsigned wasmgpu_subgroup_id(void);
WASMGPU_IMPORT(subgroup_count) unsigned wasmgpu_subgroup_count(void);
WASMGPU_IMPORT(subgroup_broadcast_i32) WASMGPU_CONVERGENT int wasmgpu_subgroup_broadcast_i32(int value, unsigned lane);
WASMGPU_IMPORT(subgroup_broadcast_f32)
WASMGPU_CONVERGENT float wasmgpu_subgroup_broadcast_f32(float value, unsigned lane);
WASMGPU_IMPORT(subgroup_shuffle_i32) WASMGPU_CONVERGENT int wasmgpu_subgroup_shuffle_i32(int value, unsigned lane);
WASMGPU_IMPORT(subgroup_shuffle_f32) WASMGPU_CONVERGENT float wasmgpu_subgroup_shuffle_f32(float value, unsigned lane);
/* Bit i set when invocation i of the subgroup passes a nonzero predicate
 * (the first 64 invocations). */
WASMGPU_IMPORT(subgroup_ballot) WASMGPU_CONVERGENT unsigned long long wasmgpu_subgroup_ballot(int predicate);
WASMGPU_IMPORT(subgroup_all) WASMGPU_CONVERGENT int wasmgpu_subgroup_all(int predicate);
WASMGPU_IMPORT(subgroup_any) WASMGPU_CONVERGENT int wasmgpu_subgroup_any(int predicate);
/* Reductions and scans over the active invocations of the subgroup. Float
 * sums add in an order the device chooses (not bit-exact across devices). */
WASMGPU_IMPORT(subgroup_add_i32) WASMGPU_CONVERGENT int wasmgpu_subgroup_add_i32(int value);
WASMGPU_IMPORT(subgroup_add_f32) WASMGPU_CONVERGENT float wasmgpu_subgroup_add_f32(float value);
WASMGPU_IMPORT(subgroup_min_i32) WASMGPU_CONVERGENT int wasmgpu_subgroup_min_i32(int value);
WASMGPU_IMPORT(subgroup_min_u32) WASMGPU_CONVERGENT unsigned wasmgpu_subgroup_min_u32(unsigned value);
WASMGPU_IMPORT(subgroup_min_f32) WASMGPU_CONVERGENT float wasmgpu_subgroup_min_f32(float value);
WASMGPU_IMPORT(subgroup_max_i32) WASMGPU_CONVERGENT int wasmgpu_subgroup_max_i32(int value);
WASMGPU_IMPORT(subgroup_max_u32) WASMGPU_CONVERGENT unsigned wasmgpu_subgroup_max_u32(unsigned value);
WASMGPU_IMPORT(subgroup_max_f32) WASMGPU_CONVERGENT float wasmgpu_subgroup_max_f32(float value);
WASMGPU_IMPORT(subgroup_inclusive_add_i32) WASMGPU_CONVERGENT int wasmgpu_subgroup_inclusive_add_i32(int value);
WASMGPU_IMPORT(subgroup_inclusive_add_f32) WASMGPU_CONVERGENT float wasmgpu_subgroup_inclusive_add_f32(float value);
WASMGPU_IMPORT(subgroup_exclusive_add_i32) WASMGPU_CONVERGENT int wasmgpu_subgroup_exclusive_add_i32(int value);
WASMGPU_IMPORT(subgroup_exclusive_add_f32) WASMGPU_CONVERGENT float wasmgpu_subgroup_exclusive_add_f32(float value);

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

/* Images. The host creates Images (2D or 3D; storage and/or sampled) and
 * Samplers and passes them as arguments; the kernel sees int handles
 * (wasmgpu_image, wasmgpu_sampler). Texels are 4 floats: r, g, b, a (an
 * r32f image reads as (r, 0, 0, 1); rgba8 unorm as values in [0, 1]).
 * Integer coordinates start at 0 with x fastest. A handle that names no
 * live image or sampler of the right kind (storage for load/store, sampled
 * for sample, 2D or 3D as the call says), or integer coordinates outside the
 * image, trap: "invalid image or sampler handle", "out of bounds image
 * access". Each call is one image instruction after the checks. */

/* Reads the texel at (x, y) of a storage image into texel[0..3]. */
WASMGPU_IMPORT(image_load_2d) void wasmgpu_image_load_2d(float texel[4], wasmgpu_image image, int x, int y);
WASMGPU_IMPORT(image_load_3d)
void wasmgpu_image_load_3d(float texel[4], wasmgpu_image image, int x, int y, int z);
/* Writes (r, g, b, a) to the texel at (x, y) of a storage image (converted
 * to the image's format: rgba8 unorm clamps to [0, 1] and rounds). */
WASMGPU_IMPORT(image_store_2d)
void wasmgpu_image_store_2d(wasmgpu_image image, int x, int y, float r, float g, float b, float a);
WASMGPU_IMPORT(image_store_3d)
void wasmgpu_image_store_3d(wasmgpu_image image, int x, int y, int z, float r, float g, float b, float a);
/* Samples a sampled image with a sampler at normalised coordinates (u, v)
 * (0..1 spans the image; texel centres at (x + 0.5) / width) and mip level
 * `lod` (compute kernels have no derivatives, so the level is explicit; 0 for
 * images without mip levels). Filtering and addressing follow the sampler. */
WASMGPU_IMPORT(image_sample_2d)
void wasmgpu_image_sample_2d(float texel[4], wasmgpu_image image, wasmgpu_sampler sampler, float u, float v, float lod);
WASMGPU_IMPORT(image_sample_3d)
void wasmgpu_image_sample_3d(float texel[4], wasmgpu_image image, wasmgpu_sampler sampler, float u, float v, float w,
                             float lod);
/* Width (0), height (1) or depth (2) of an image in texels; 1 for other
 * dimensions, and depth 1 for 2D images. */
WASMGPU_IMPORT(image_size) int wasmgpu_image_size(wasmgpu_image image, unsigned dimension);

#ifdef __cplusplus
}
#endif

#endif /* WASMGPU_H */
